package media;

import javax.servlet.http.*;

public class Thumbnailer extends HttpServlet {
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws Exception {
        String name = Paths.get(req.getParameter("file")).getFileName().toString();
        Process p = new ProcessBuilder("convert", "--", "/uploads/" + name, "-resize", "64x64").start();
        p.waitFor();
        Process q = Runtime.getRuntime().exec(new String[] {"ping", "-c", "1", "localhost"});
        q.waitFor();
    }
}
