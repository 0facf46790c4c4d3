// Package amhost assembles an AM in its process and runs it to its end:
// on YARN (StartYarn: the container's environment, read once by main into
// a YarnEnv, then named steps: read the configuration, open staging, open
// recovery, build the AM, build the world, register and recover, start the
// token refresher; Run; Finish) and on this machine (StartLocal). It owns
// what only an AM's host knows: the staging directory's files (secret, AM
// address, recovery log), where history and outputs go, the status UI's
// options, the delegation-token refresher, the session-idle end and the
// configuration keys mapped to the core's typed options.
//
// It holds no flags, prints nothing and picks no exit code: that is
// cmd/ebb's. The core (am/core) stays pure; the AM's server is package am;
// the worlds are am/yarn and am/local.
package amhost
