package com.example.shop;

import java.io.File;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.crypto.Cipher;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

public class AccountController {
    private static final String ACCOUNTS = "accounts";
    private final Connection conn;
    private final Path uploads = Paths.get("/srv/uploads");

    public AccountController(Connection conn) {
        this.conn = conn;
    }

    public ResultSet find(HttpServletRequest request) throws Exception {
        PreparedStatement ps = conn.prepareStatement("SELECT * FROM accounts WHERE id = ?");
        ps.setString(1, request.getParameter("id"));
        return ps.executeQuery();
    }

    public ResultSet search(HttpServletRequest request) throws Exception {
        Statement st = conn.createStatement();
        String name = request.getParameter("name");
        return st.executeQuery("SELECT * FROM accounts WHERE name = '" + name + "'");
    }

    public ResultSet all() throws Exception {
        return conn.createStatement().executeQuery("SELECT * FROM " + ACCOUNTS);
    }

    public void avatar(HttpServletRequest request, HttpServletResponse response) throws IOException {
        File f = new File(uploads.toFile(), request.getParameter("file"));
        response.getOutputStream().write(Files.readAllBytes(f.toPath()));
    }

    public void safeAvatar(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Path name = Paths.get(request.getParameter("file")).getFileName();
        response.getOutputStream().write(Files.readAllBytes(uploads.resolve(name)));
    }

    public void greet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.getWriter().println("<p>Hello " + request.getParameter("name") + "</p>");
    }

    public void backup(String target) throws IOException {
        Runtime.getRuntime().exec("tar czf " + target + " /srv/data");
        new ProcessBuilder("tar", "czf", target, "/srv/data").start();
    }

    public Object restore(java.io.InputStream in) throws Exception {
        return new ObjectInputStream(in).readObject();
    }

    public byte[] hash(String password) throws Exception {
        return MessageDigest.getInstance("SHA-1").digest(password.getBytes());
    }

    public Cipher cipher() throws Exception {
        return Cipher.getInstance("AES/GCM/NoPadding");
    }
}
