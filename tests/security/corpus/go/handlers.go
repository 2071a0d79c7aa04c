package shop

import (
	"crypto/md5"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
)

const productsTable = "products"

type Server struct {
	DB      *sql.DB
	DataDir string
}

func (s *Server) Product(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	row := s.DB.QueryRow("SELECT name, price FROM products WHERE id = $1", id)
	var name string
	var price int
	if err := row.Scan(&name, &price); err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	fmt.Fprintf(w, "%s: %d", name, price)
}

func (s *Server) Search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	rows, err := s.DB.Query("SELECT name FROM products WHERE name LIKE '%" + q + "%'")
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	defer rows.Close()
}

func (s *Server) Sorted(w http.ResponseWriter, r *http.Request) {
	rows, err := s.DB.Query(fmt.Sprintf("SELECT name FROM %s ORDER BY name", "products"))
	if err == nil {
		rows.Close()
	}
}

func (s *Server) Convert(w http.ResponseWriter, r *http.Request) {
	name := r.FormValue("name")
	out, err := exec.Command("sh", "-c", "convert "+name+" thumb.png").CombinedOutput()
	if err != nil {
		http.Error(w, string(out), 500)
	}
	_, _ = exec.Command("convert", filepath.Base(name), "thumb.png").CombinedOutput()
}

func (s *Server) Download(w http.ResponseWriter, r *http.Request) {
	data, err := os.ReadFile(filepath.Join(s.DataDir, r.URL.Query().Get("file")))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(data)
}

func (s *Server) SafeDownload(w http.ResponseWriter, r *http.Request) {
	data, err := os.ReadFile(filepath.Join(s.DataDir, filepath.Base(r.URL.Query().Get("file"))))
	if err == nil {
		_, _ = w.Write(data)
	}
}

func (s *Server) Fetch(w http.ResponseWriter, r *http.Request) {
	resp, err := http.Get(r.URL.Query().Get("url"))
	if err == nil {
		resp.Body.Close()
	}
}

func HashPassword(password string) string {
	return fmt.Sprintf("%x", md5.Sum([]byte(password)))
}

// ETag is a cache validator, not a security control.
func ETag(body []byte) string {
	return fmt.Sprintf("%x", md5.Sum(body))
}

func Digest(body []byte) string {
	return fmt.Sprintf("%x", sha256.Sum256(body))
}
