package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// errUnauthorized marks a fetch the producer's worker refused: the secrets
// disagree, which re-running the producer would not fix.
var errUnauthorized = errors.New("producer worker refused our secret")

// outputURL is where the worker at address serves one partition.
func outputURL(address, dagID, producerAttempt, consumer string, partition int32) string {
	return (&url.URL{
		Scheme: "http",
		Host:   address,
		Path: outputsPathPrefix + url.PathEscape(dagID) + "/" + url.PathEscape(producerAttempt) + "/" +
			url.PathEscape(consumer) + "/" + strconv.Itoa(int(partition)),
	}).String()
}

// fetchInput downloads one upstream partition into inputDir/<vertex>/<task>.
// Any failure is a *FetchError naming the producer attempt.
func fetchInput(ctx context.Context, client *http.Client, secret, dagID, inputDir string, in *ebbpb.InputFetch) (int64, error) {
	u := outputURL(in.GetAddress(), dagID, in.GetProducerAttempt(), in.GetConsumer(), in.GetPartition())
	fail := func(err error) (int64, error) {
		return 0, &FetchError{ProducerAttempt: in.GetProducerAttempt(), URL: u, Err: err}
	}
	if !safeSegment(in.GetProducerVertex()) {
		return fail(fmt.Errorf("unsafe producer vertex name %q", in.GetProducerVertex()))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := client.Do(req)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = resp.Body.Close() }() // read to the end or abandoned: nothing to lose
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fail(fmt.Errorf("%w (HTTP %d)", errUnauthorized, resp.StatusCode))
	case resp.StatusCode != http.StatusOK:
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fail(fmt.Errorf("HTTP %d: %s", resp.StatusCode, msg))
	}
	dir := filepath.Join(inputDir, in.GetProducerVertex())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	dst := filepath.Join(dir, strconv.Itoa(int(in.GetProducerTask())))
	f, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A body cut short means the producer's worker went away mid-way.
		return fail(fmt.Errorf("reading body: %w", err))
	}
	return n, nil
}
