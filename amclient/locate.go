package amclient

import (
	"context"
	"time"
)

// Locator finds the application's AM after the attempt prev went away:
// an attempt other than prev, waiting for one to run; an error when the
// application ended (the error says how) or ctx did.
type Locator func(ctx context.Context, prev int32) (Target, error)

// Await is a Locator over find, which names the application's current AM
// (and fails once the application has ended): it asks find every poll
// until the attempt is another than prev.
func Await(find func(ctx context.Context) (Target, error), poll time.Duration) Locator {
	return func(ctx context.Context, prev int32) (Target, error) {
		for {
			t, err := find(ctx)
			if err != nil {
				return Target{}, err
			}
			if t.Attempt != prev {
				return t, nil
			}
			select {
			case <-ctx.Done():
				return Target{}, ctx.Err()
			case <-time.After(poll):
			}
		}
	}
}
