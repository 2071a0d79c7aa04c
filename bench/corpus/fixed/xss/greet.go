package web

import (
	"fmt"
	"html"
	"html/template"
	"net/http"
)

func Greet(w http.ResponseWriter, r *http.Request) {
	name := html.EscapeString(r.URL.Query().Get("name"))
	fmt.Fprintf(w, "<h1>Hello %s</h1>", name)
}

func Bio(w http.ResponseWriter, r *http.Request, t *template.Template) {
	t.Execute(w, r.FormValue("bio"))
}
