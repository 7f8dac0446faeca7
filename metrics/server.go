package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves a Collector's metrics at /metrics over HTTP.
type Server struct {
	ln  net.Listener
	srv *http.Server
	// Done is closed when Serve returns.
	done chan struct{}
	err  error
}

// Listen binds addr (host:port, e.g. "127.0.0.1:9435" or ":9435") for
// c's metrics. Its error is one line naming the address: a bad address,
// or one in use.
func Listen(addr string, c *Collector, errorLog func(string)) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics %s: %s", addr, listenError(err))
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	if errorLog == nil {
		errorLog = func(string) {}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      logFunc(errorLog),
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "gotrace: metrics at /metrics")
	})
	s := &Server{
		ln:   ln,
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	return s, nil
}

// Addr is the address the server listens on (with the port chosen when
// addr's was 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops the server, letting scrapes under way finish for at most a
// second.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.done
	return errors.Join(err, s.err)
}

// listenError is net.Listen's error without the "listen tcp" prefix and
// the address that the caller names anyway.
func listenError(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		err = oe.Err
	}
	var ae *net.AddrError
	if errors.As(err, &ae) {
		return ae.Err
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "bind") {
		msg = msg[i+2:]
	}
	return msg
}

// logFunc adapts a line function to promhttp's logger.
type logFunc func(string)

func (f logFunc) Println(v ...any) { f(strings.TrimSuffix(fmt.Sprintln(v...), "\n")) }

var _ promhttp.Logger = logFunc(nil)
