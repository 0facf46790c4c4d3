package amhost

import (
	"net/url"
	"sync"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/s3fs"
)

// outputFS resolves DAG output locations for the AM's committer the way
// workers resolve them: plain paths on this machine, hdfs:// URLs on their
// NameNode, each dialled once, as user. Its connections live as long as
// the process (the AM's).
type outputFS struct {
	user string
	// s3 reaches s3:// and s3a:// outputs.
	s3 *s3fs.Store
	mu sync.Mutex
	nn map[string]*hdfsfs.FS
}

func newOutputFS(user string, s3 *s3fs.Store) *outputFS {
	return &outputFS{user: user, s3: s3, nn: map[string]*hdfsfs.FS{}}
}

var _ commit.Resolver = (*outputFS)(nil).resolve

func (o *outputFS) resolve(location string) (commit.FS, string, error) {
	if _, ok := commit.LocalPath(location); ok {
		return commit.LocalResolver(location)
	}
	if s3fs.IsS3(location) {
		return o.s3.Resolve(location)
	}
	u, err := url.Parse(location)
	if err != nil || u.Scheme != "hdfs" || u.Host == "" {
		return nil, "", &commit.SchemeError{Location: location}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	fs, ok := o.nn[u.Host]
	if !ok {
		if fs, err = hdfsfs.Dial("hdfs://"+u.Host, o.user); err != nil {
			return nil, "", err
		}
		o.nn[u.Host] = fs
	}
	return fs.Resolve(location)
}
