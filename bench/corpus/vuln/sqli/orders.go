package shop

import (
	"database/sql"
	"fmt"
	"net/http"
)

type Store struct{ db *sql.DB }

func (s *Store) ListOrders(w http.ResponseWriter, r *http.Request) {
	customer := r.URL.Query().Get("customer")
	query := "SELECT id, total FROM orders WHERE customer = '" + customer + "'"
	rows, err := s.db.Query(query) // VULN
	if err != nil {
		http.Error(w, "db", 500)
		return
	}
	defer rows.Close()
}

func (s *Store) Cancel(r *http.Request) error {
	id := r.FormValue("id")
	stmt := fmt.Sprintf("UPDATE orders SET status = 'cancelled' WHERE id = %s", id)
	_, err := s.db.Exec(stmt) // VULN
	return err
}
