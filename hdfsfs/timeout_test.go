package hdfsfs

import (
	"net"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"
)

// A NameNode that accepts a connection and never answers holds a call no
// longer than the call timeout, and the failure is one Retry tries again.
func TestSilentNamenodeTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer func() { _ = c.Close() }() // held open, never answered, until the test ends
		}
	}()
	c, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: []string{ln.Addr().String()}, User: "u",
		NamenodeDialFunc: namenodeDialer(nil, time.Second, 300*time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { _, err := c.Stat("/x"); done <- err }()
	select {
	case err := <-done:
		took := time.Since(start)
		if err == nil || !Unavailable(err) {
			t.Fatalf("Stat against a silent NameNode = %v, want a timeout Retry tries again", err)
		}
		t.Logf("the call failed after %s: %v", took.Round(time.Millisecond), err)
	case <-time.After(10 * time.Second):
		t.Fatal("Stat against a silent NameNode still waits after 10 s")
	}
}
