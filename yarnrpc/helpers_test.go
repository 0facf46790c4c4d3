package yarnrpc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
)

func errorAs(err error, target any) bool { return errors.As(err, target) }
func errorIs(err, target error) bool     { return errors.Is(err, target) }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func readTestdata(name string) (client, server []byte, err error) {
	client, err = os.ReadFile(filepath.Join("testdata", name+".client"))
	if err != nil {
		return nil, nil, err
	}
	server, err = os.ReadFile(filepath.Join("testdata", name+".server"))
	return client, server, err
}
