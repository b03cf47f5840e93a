// The reference for packetlab's httpServer: Go's net/http with the same routes as test/app/http/server-go.test.ts
// gives packetlab, listening on 127.0.0.1 at a port the kernel picks, or on the ADDR:PORT given as its one argument (the
// kernel harness's http step), and printing the port first.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
)

func filler(n int) []byte {
	line := "packetlab filler: 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHI\n"
	return []byte(strings.Repeat(line, n/len(line)+1)[:n])
}

// readBody is what every packetlab route does first: read the whole request body, answer 400 on an error.
func readBody(w http.ResponseWriter, r *http.Request) bool {
	if _, err := io.ReadAll(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("/sante", func(w http.ResponseWriter, r *http.Request) {
		if readBody(w, r) {
			w.Write([]byte("ok\n"))
		}
	})
	mux.HandleFunc("/rapport", func(w http.ResponseWriter, r *http.Request) {
		if readBody(w, r) {
			w.Write(filler(200000))
		}
	})
	mux.HandleFunc("/cinq", func(w http.ResponseWriter, r *http.Request) {
		if readBody(w, r) {
			w.Write(filler(5000))
		}
	})
	mux.HandleFunc("/rapport-cl", func(w http.ResponseWriter, r *http.Request) {
		if readBody(w, r) {
			w.Header().Set("Content-Length", strconv.Itoa(200000))
			w.Write(filler(200000))
		}
	})
	mux.HandleFunc("/flux", func(w http.ResponseWriter, r *http.Request) {
		if readBody(w, r) {
			w.Write([]byte("abcd"))
			w.(http.Flusher).Flush()
			w.Write([]byte("efgh"))
			w.(http.Flusher).Flush()
			w.Write([]byte("ij"))
		}
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		if readBody(w, r) {
			w.Header().Set("X-Pod", "web-1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(201)
			w.Write([]byte("{}"))
		}
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) { readBody(w, r) })
	mux.HandleFunc("/sick", func(w http.ResponseWriter, r *http.Request) {
		if readBody(w, r) {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		}
	})
	listen := "127.0.0.1:0"
	if len(os.Args) > 1 {
		listen = os.Args[1]
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		panic(err)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	srv := &http.Server{Handler: mux, MaxHeaderBytes: 1024}
	srv.Serve(ln)
}
