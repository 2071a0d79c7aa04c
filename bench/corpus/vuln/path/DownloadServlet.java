package files;

import java.io.*;
import javax.servlet.http.*;

public class DownloadServlet extends HttpServlet {
    private static final String BASE = "/srv/reports/";

    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String name = request.getParameter("report");
        File report = new File(BASE + name); // VULN
        FileInputStream in = new FileInputStream(report);
        in.transferTo(response.getOutputStream());
    }

    @GetMapping("/logs")
    public byte[] log(@RequestParam String file) throws IOException {
        String path = "/var/log/app/" + file;
        return Files.readAllBytes(Paths.get(path)); // VULN
    }
}
