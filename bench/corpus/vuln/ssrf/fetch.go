package proxy

import (
	"io"
	"net/http"
)

func Fetch(w http.ResponseWriter, r *http.Request) {
	target := r.URL.Query().Get("url")
	resp, err := http.Get(target) // VULN
	if err != nil {
		return
	}
	io.Copy(w, resp.Body)
}

func Hook(w http.ResponseWriter, r *http.Request) {
	endpoint := "http://" + r.FormValue("host") + "/hook"
	req, _ := http.NewRequest("POST", endpoint, nil) // VULN
	http.DefaultClient.Do(req)
}
