package ops

import (
	"net/http"
	"os/exec"
	"path/filepath"
)

func Backup(w http.ResponseWriter, r *http.Request) {
	dir := filepath.Base(r.FormValue("dir"))
	out, _ := exec.Command("tar", "czf", "/backups/out.tgz", "--", dir).Output()
	w.Write(out)
}

func Ping(w http.ResponseWriter, r *http.Request) {
	cmd := exec.Command("sh", "-c", "ping -c 1 localhost")
	cmd.Run()
}
