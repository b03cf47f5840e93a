// The reference for packetlab's kube-proxy health servers: Go 1.19's net/http writing what kube-proxy v1.31's
// handlers write (pkg/proxy/healthcheck: healthzHandler, livez, hcHandler), with Go's own time formatting. It
// listens on 127.0.0.1 on a port of the kernel's choice and prints that port. Paths: /healthz (healthy),
// /stale (a queued update past the timeout, never synced: the zero lastUpdated), /svc (one local endpoint),
// /svc-none (none).
package main

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

func proxier(healthy bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		current := time.Now()
		lastUpdated := time.Time{}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if !healthy {
			w.WriteHeader(http.StatusServiceUnavailable)
		} else {
			w.WriteHeader(http.StatusOK)
			lastUpdated = current
		}
		fmt.Fprintf(w, `{"lastUpdated": %q,"currentTime": %q, "nodeEligible": %v}`, lastUpdated, current, true)
	}
}

func service(count int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if count != 0 {
			w.WriteHeader(http.StatusOK)
		} else {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		// What dedent.Dedent leaves of kube-proxy's template, then strings.Trim(..., "\n").
		body := fmt.Sprintf("\n{\n\t\"service\": {\n\t\t\"namespace\": %q,\n\t\t\"name\": %q\n\t},\n\t\"localEndpoints\": %d,\n\t\"serviceProxyHealthy\": %v\n}\n", "default", "signalements", count, true)
		fmt.Fprint(w, strings.Trim(body, "\n"))
	}
}

func main() {
	mux := http.NewServeMux()
	mux.Handle("/healthz", proxier(true))
	mux.Handle("/stale", proxier(false))
	mux.Handle("/svc", service(1))
	mux.Handle("/svc-none", service(0))
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println(listener.Addr().(*net.TCPAddr).Port)
	_ = http.Serve(listener, mux)
}
