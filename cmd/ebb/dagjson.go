package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/ebb-am/ebb/amhost"
)

// statusJSON prints what the AM's UI API answers (api/v1/dags or
// api/v1/dags/ID): the same JSON the pages read, so scripts and the UI
// never disagree. The UI's address is a local session's status URL or a
// tracking URL given with --url (e.g. http://RM/proxy/APP/).
func statusJSON(ctx context.Context, out io.Writer, f amFlags, base string, args []string) error {
	if base == "" && f.session != "" {
		b, err := os.ReadFile(f.session)
		if err != nil {
			return err
		}
		var s amhost.LocalSession
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("%s: %w", f.session, err)
		}
		base = s.StatusURL
	}
	if base == "" {
		return errors.New("--json reads the AM's UI: give --session FILE or --url TRACKING_URL")
	}
	path := "api/v1/dags"
	if len(args) == 1 {
		path += "/" + url.PathEscape(args[0])
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/"+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", req.URL, resp.Status, strings.TrimSpace(string(b)))
	}
	_, err = out.Write(b)
	return err
}
