package files

import (
	"net/http"
	"os"
	"path/filepath"
)

const root = "/srv/files"

func Download(w http.ResponseWriter, r *http.Request) {
	name := filepath.Base(r.URL.Query().Get("name"))
	full := filepath.Join(root, name)
	data, err := os.ReadFile(full)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Write(data)
}

func Remove(r *http.Request) error {
	target := filepath.Join(root, filepath.Base(r.FormValue("file")))
	return os.Remove(target)
}
