package shop;

import java.sql.*;
import javax.servlet.http.*;

public class OrderDao extends HttpServlet {
    private Connection conn;

    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws Exception {
        String customer = request.getParameter("customer");
        String sql = "SELECT id, total FROM orders WHERE customer = '" + customer + "'";
        Statement stmt = conn.createStatement();
        ResultSet rs = stmt.executeQuery(sql); // VULN
        response.getWriter().println(rs.getInt(1));
    }

    public int deleteOlder(String day) throws SQLException {
        String sql = String.format("DELETE FROM orders WHERE created < '%s'", day);
        return conn.createStatement().executeUpdate(sql); // VULN
    }
}
