package web

import (
	"fmt"
	"html/template"
	"net/http"
)

func Greet(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	fmt.Fprintf(w, "<h1>Hello %s</h1>", name) // VULN
}

func Bio(w http.ResponseWriter, r *http.Request, t *template.Template) {
	bio := r.FormValue("bio")
	t.Execute(w, template.HTML(bio)) // VULN
}
