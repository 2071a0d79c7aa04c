package shop;

import java.sql.*;
import javax.servlet.http.*;

public class OrderDao extends HttpServlet {
    private Connection conn;
    private static final String TABLE = "orders";

    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws Exception {
        String customer = request.getParameter("customer");
        PreparedStatement ps = conn.prepareStatement("SELECT id, total FROM orders WHERE customer = ?");
        ps.setString(1, customer);
        ResultSet rs = ps.executeQuery();
        response.getWriter().println(rs.getInt(1));
    }

    public int deleteOlder(String day) throws SQLException {
        PreparedStatement ps = conn.prepareStatement("DELETE FROM " + TABLE + " WHERE created < ?");
        ps.setString(1, day);
        return ps.executeUpdate();
    }
}
