package media;

import javax.servlet.http.*;

public class Thumbnailer extends HttpServlet {
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws Exception {
        String name = req.getParameter("file");
        String cmd = "convert /uploads/" + name + " -resize 64x64 /thumbs/" + name;
        Process p = Runtime.getRuntime().exec(cmd); // VULN
        p.waitFor();
        String host = req.getParameter("host");
        new ProcessBuilder("sh", "-c", "ping -c 1 " + host).start(); // VULN
    }
}
