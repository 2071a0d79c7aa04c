package webhooks

import (
	"crypto/tls"
	"net/http"
)

// NewClient posts webhooks to customer endpoints.
func NewClient() *http.Client {
	cfg := &tls.Config{InsecureSkipVerify: true} // VULN
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
}
