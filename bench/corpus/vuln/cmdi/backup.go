package ops

import (
	"net/http"
	"os/exec"
)

func Backup(w http.ResponseWriter, r *http.Request) {
	dir := r.FormValue("dir")
	script := "tar czf /backups/out.tgz " + dir
	out, _ := exec.Command("sh", "-c", script).Output() // VULN
	w.Write(out)
}

func Ping(w http.ResponseWriter, r *http.Request) {
	host := r.URL.Query().Get("host")
	cmd := exec.Command(fmt.Sprintf("ping -c 1 %s", host)) // VULN
	cmd.Run()
}
