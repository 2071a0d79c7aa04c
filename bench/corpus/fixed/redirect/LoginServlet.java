package auth;

import javax.servlet.http.*;

public class LoginServlet extends HttpServlet {
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws Exception {
        if (login(request)) {
            response.sendRedirect("/dashboard");
        }
    }

    @GetMapping("/out")
    public void out(@RequestParam String back, HttpServletResponse response) throws Exception {
        response.sendRedirect(request.getContextPath() + "/login");
    }

    private boolean login(HttpServletRequest request) { return true; }
}
