package web;

import java.net.URL;
import javax.servlet.http.*;

public class PreviewController extends HttpServlet {
    private RestTemplate rest = new RestTemplate();
    private static final String AVATARS = "https://avatars.example.com/";

    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws Exception {
        URL url = new URL("https://status.example.com/feed.xml");
        url.openStream().transferTo(response.getOutputStream());
    }

    @GetMapping("/avatar")
    public String avatar(@RequestParam String source) {
        int id = Integer.parseInt(source);
        return rest.getForObject(AVATARS + id + ".png", String.class);
    }
}
