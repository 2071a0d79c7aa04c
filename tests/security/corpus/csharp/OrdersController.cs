using System.Data.SqlClient;
using System.IO;
using System.Security.Cryptography;
using Microsoft.AspNetCore.Mvc;

namespace Shop.Controllers
{
    public class OrdersController : Controller
    {
        private const string OrdersTable = "Orders";
        private readonly SqlConnection _conn;
        private readonly string _root = "/srv/invoices";

        public OrdersController(SqlConnection conn) => _conn = conn;

        public IActionResult Get(int id)
        {
            var cmd = new SqlCommand("SELECT * FROM Orders WHERE Id = @id", _conn);
            cmd.Parameters.AddWithValue("@id", id);
            return Ok(cmd.ExecuteScalar());
        }

        public IActionResult Search(string customer)
        {
            var cmd = new SqlCommand("SELECT * FROM Orders WHERE Customer = '" + customer + "'", _conn);
            return Ok(cmd.ExecuteScalar());
        }

        public IActionResult Invoice()
        {
            var bytes = System.IO.File.ReadAllBytes(Path.Combine(_root, Request.Query["file"]));
            return File(bytes, "application/pdf");
        }

        public IActionResult SafeInvoice()
        {
            var bytes = System.IO.File.ReadAllBytes(Path.Combine(_root, Path.GetFileName(Request.Query["file"])));
            return File(bytes, "application/pdf");
        }

        public string Checksum(byte[] data)
        {
            using var md5 = MD5.Create();
            return System.Convert.ToHexString(md5.ComputeHash(data));
        }

        public string Digest(byte[] data)
        {
            using var sha = SHA256.Create();
            return System.Convert.ToHexString(sha.ComputeHash(data));
        }
    }
}
