package security

import (
	"time"

	"github.com/ebb-am/ebb/yarnrpc"
)

// Tokens cannot be renewed past their maximum lifetime
// (dfs.namenode.delegation.token.max-lifetime, 7 days by default), however
// often the RM renews them. A session that outlives them needs new ones,
// obtained with a keytab login (the keytab shipped in the staging
// directory) and handed to its workers, as Spark's --keytab does.

// refreshFraction is how far into a token's maximum lifetime fresh tokens
// are fetched: late enough to be rare, early enough that a slow KDC or
// NameNode leaves time for retries before the old ones die.
const refreshFraction = 0.75

// RefreshAt is when the delegation tokens in creds should be replaced: a
// fraction of the way from issue to maximum date, for the token that
// reaches it first. ok is false when creds hold no delegation token whose
// identifier can be read (nothing to refresh).
func RefreshAt(creds *yarnrpc.Credentials) (at time.Time, ok bool) {
	return RefreshBy(creds, 0)
}

// RefreshBy is RefreshAt for tokens nobody renews: a token lives until its
// maximum date only if its renewer renews it every renewInterval
// (dfs.namenode.delegation.token.renew-interval, a day by default). The RM
// renews the tokens the application was submitted with, but not the fresh
// ones an AM obtains later, which therefore die after renewInterval: the
// shorter of the two lives counts. renewInterval <= 0 means renewed.
func RefreshBy(creds *yarnrpc.Credentials, renewInterval time.Duration) (at time.Time, ok bool) {
	for _, nt := range creds.Tokens {
		d, err := nt.Token.Delegation()
		if err != nil || !d.MaxDate.After(d.Issued) {
			continue
		}
		life := d.MaxDate.Sub(d.Issued)
		if renewInterval > 0 && renewInterval < life {
			life = renewInterval
		}
		t := d.Issued.Add(time.Duration(float64(life) * refreshFraction))
		if !ok || t.Before(at) {
			at, ok = t, true
		}
	}
	return at, ok
}
