// Clean Go in the style of a CLI library: completion debug output goes to the file the
// user names in an environment variable, and a --skip-verify flag (an explicit opt-in)
// turns certificate checks off. Written for aiagent.
package cli

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
)

func CompDebug(msg string) {
	if path := os.Getenv("BASH_COMP_DEBUG_FILE"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			defer f.Close()
			fmt.Fprintln(f, msg)
		}
	}
}

func Client(skipVerify bool) *http.Client {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if skipVerify {
		cfg.InsecureSkipVerify = true
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
}

func ReadTemplate() ([]byte, error) {
	return os.ReadFile(os.Args[1])
}
