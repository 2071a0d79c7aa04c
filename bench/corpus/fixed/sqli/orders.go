package shop

import (
	"database/sql"
	"net/http"
	"strconv"
)

type Store struct{ db *sql.DB }

const ordersTable = "orders"

func (s *Store) ListOrders(w http.ResponseWriter, r *http.Request) {
	customer := r.URL.Query().Get("customer")
	rows, err := s.db.Query("SELECT id, total FROM "+ordersTable+" WHERE customer = $1", customer)
	if err != nil {
		http.Error(w, "db", 500)
		return
	}
	defer rows.Close()
}

func (s *Store) Cancel(r *http.Request) error {
	id, err := strconv.Atoi(r.FormValue("id"))
	if err != nil {
		return err
	}
	_, err = s.db.Exec("UPDATE orders SET status = 'cancelled' WHERE id = $1", id)
	return err
}
