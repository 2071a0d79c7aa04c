package auth;

import javax.servlet.http.*;

public class LoginServlet extends HttpServlet {
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws Exception {
        String next = request.getParameter("next");
        if (login(request)) {
            response.sendRedirect(next); // VULN
        }
    }

    @GetMapping("/out")
    public void out(@RequestParam String back, HttpServletResponse response) throws Exception {
        response.sendRedirect("https://" + back); // VULN
    }

    private boolean login(HttpServletRequest request) { return true; }
}
