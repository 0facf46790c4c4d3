package s3fs

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
)

// Limits on every call. A call is one request and its retries; a part
// upload or a ranged read of a large split gets the longer DataTimeout.
const (
	CallTimeout = 60 * time.Second
	DataTimeout = 10 * time.Minute
	// MaxAttempts bounds the SDK's retries (throttling such as 503
	// SlowDown, 5xx, and a connection dropped before the answer) with
	// jittered exponential backoff up to MaxBackoff.
	MaxAttempts = 6
	MaxBackoff  = 5 * time.Second
)

// Store hands out one S3 client per bucket, each built from that bucket's
// Settings: buckets may live on different endpoints with different keys.
type Store struct {
	lookup func(string) (string, bool)
	// Retry: the retryer's bounds; tests shorten the backoff.
	maxBackoff time.Duration
	mu         sync.Mutex
	clients    map[string]*s3.Client
}

// NewStore returns a Store reading Hadoop keys through lookup (nil: none,
// the AWS chain alone).
func NewStore(lookup func(string) (string, bool)) *Store {
	return &Store{lookup: lookup, maxBackoff: MaxBackoff, clients: map[string]*s3.Client{}}
}

// client is bucket's client, made on first use.
func (st *Store) client(ctx context.Context, loc Location) (*s3.Client, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if c, ok := st.clients[loc.Bucket]; ok {
		return c, nil
	}
	s, err := SettingsFor(loc.Bucket, st.lookup)
	if err != nil {
		return nil, fmt.Errorf("s3: %s: %w", loc, err)
	}
	c, err := st.newClient(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("s3: %s: %w", loc, err)
	}
	st.clients[loc.Bucket] = c
	return c, nil
}

func (st *Store) newClient(ctx context.Context, s Settings) (*s3.Client, error) {
	opts := []func(*config.LoadOptions) error{
		// Buildable, so that the SDK can still add a CA bundle
		// (AWS_CA_BUNDLE) to it.
		config.WithHTTPClient(awshttp.NewBuildableClient().WithDialerOptions(func(d *net.Dialer) {
			d.Timeout, d.KeepAlive = 10*time.Second, 30*time.Second
		}).WithTransportOptions(func(tr *http.Transport) {
			tr.MaxIdleConnsPerHost = 64
			tr.TLSHandshakeTimeout = 10 * time.Second
			tr.ResponseHeaderTimeout = CallTimeout
		})),
		// The SDK's own log lines (connection reuse) are not errors.
		config.WithLogger(logging.Nop{}),
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = MaxAttempts
				o.MaxBackoff = st.maxBackoff
			})
		}),
	}
	if s.Region != "" {
		opts = append(opts, config.WithRegion(s.Region))
	}
	if s.AccessKey != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, s.SessionToken)))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("reading the AWS configuration: %v", oneLine(err))
	}
	if cfg.Region == "" {
		// S3-compatible servers ignore it, but SigV4 signs with one.
		cfg.Region = "us-east-1"
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = s.PathStyle
		if s.Endpoint != "" {
			o.BaseEndpoint = aws.String(s.Endpoint)
		}
		// Checksums only where S3 requires them: S3-compatible servers
		// refuse the newer trailing checksums on multipart parts.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	}), nil
}

// call runs f with loc's client under a timeout.
func call[T any](ctx context.Context, st *Store, loc Location, op string, timeout time.Duration,
	f func(context.Context, *s3.Client) (T, error)) (T, error) {
	var zero T
	c, err := st.client(ctx, loc)
	if err != nil {
		return zero, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := f(cctx, c)
	if err != nil {
		return zero, wrap(op, loc, err)
	}
	return out, nil
}
