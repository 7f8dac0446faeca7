package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// startScraped runs gotrace on src with --metrics and scrapes it every
// second, as a Prometheus server would, until stopped.
func startScraped(gotrace, src string) (func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	stop, err := startTool(gotrace, src, "--metrics", addr)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if err := scrapeOnce("http://" + addr + "/metrics"); err != nil {
					fmt.Println("scrape:", err)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		stop()
	}, nil
}

// scrapeOnce GETs url and reads the whole body.
func scrapeOnce(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}
