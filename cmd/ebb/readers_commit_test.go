package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
)

// Many readers, through the UI's JSON API and the client status call, ask
// for the DAGs' states while the AM commits their outputs. A reader that
// is told SUCCEEDED must find the output whole (its _SUCCESS marker and
// both parts), however its read interleaves with the promotion; and no
// reader waits past the deadline (the UI reads on the loop's goroutine and
// takes the AM's output lock there, while promotions take it elsewhere).
func TestReadersNeverSeeSucceededBeforeTheOutput(t *testing.T) {
	ta := startTestAM(t, 3*time.Minute)
	const dags, readers = 6, 12
	spec := `
name: r%d
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: sink, command: 'echo "$EBB_TASK_INDEX" > "$EBB_OUTPUT_DIR/part"', parallelism: 2, memoryMB: 128}]
`
	outputs := map[string]string{} // DAG id -> its output
	for i := range dags {
		out := filepath.Join(ta.root, "out", fmt.Sprint(i))
		id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: fmt.Appendf(nil, spec, i), SpecName: "r.yaml", Output: out})
		if err != nil {
			t.Fatal(err)
		}
		outputs[id] = out
	}
	whole := func(out string) error {
		for _, f := range []string{"_SUCCESS", "part-00000", "part-00001"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ta.ctx, 2*time.Minute)
	defer cancel()
	var (
		mu    sync.Mutex
		bad   []string
		reads int
		seen  = map[string]bool{} // DAG ids some reader saw SUCCEEDED
	)
	check := func(how, id, state string) {
		mu.Lock()
		defer mu.Unlock()
		reads++
		if state != core.DAGSucceeded.String() {
			return
		}
		seen[id] = true
		if err := whole(outputs[id]); err != nil && len(bad) < 5 {
			bad = append(bad, fmt.Sprintf("%s said %s SUCCEEDED, but its output is not whole: %v", how, id, err))
		}
	}
	allSeen := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == dags
	}
	client := &http.Client{Timeout: 30 * time.Second}
	api := "http://" + ta.StatusAddr() + "/api/v1/dags"
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && !allSeen() {
				if r%2 == 0 {
					var list []ui.DAG
					if err := getJSONCtx(ctx, client, api, &list); err != nil {
						errs <- err
						return
					}
					for _, d := range list {
						check("the UI", d.ID, d.State)
					}
					continue
				}
				for id := range outputs {
					st, _, err := ta.Status(ctx, id)
					if err != nil {
						errs <- err
						return
					}
					check("the client status", id, st.State.String())
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a reader: %v", err)
	}
	if !allSeen() {
		t.Fatalf("after 2 minutes the readers saw %d of %d DAGs SUCCEEDED", len(seen), dags)
	}
	t.Logf("%d readers made %d reads while %d DAGs committed", readers, reads, dags)
	for _, b := range bad {
		t.Error(b)
	}
}

func getJSONCtx(ctx context.Context, c *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
