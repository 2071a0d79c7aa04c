package web;

import java.net.URL;
import javax.servlet.http.*;

public class PreviewController extends HttpServlet {
    private RestTemplate rest = new RestTemplate();

    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws Exception {
        String target = request.getParameter("url");
        URL url = new URL(target); // VULN
        url.openStream().transferTo(response.getOutputStream());
    }

    @GetMapping("/avatar")
    public String avatar(@RequestParam String source) {
        String full = "https://" + source + "/avatar.png";
        return rest.getForObject(full, String.class); // VULN
    }
}
