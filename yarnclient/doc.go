// Package yarnclient is the gateway side of ebb on YARN: what a user's
// machine does to run ebb on a cluster it knows through HADOOP_CONF_DIR.
//
// It owns the staging directory and its layout in HDFS
// (/user/<user>/.ebb/staging/<application id>: the effective
// configuration, the DAG, and the secret the AM writes back), the shared
// ebb binaries (/user/<user>/.ebb/lib/<sha256>/ebb, uploaded once per
// build and reused, PUBLIC to the NodeManagers where permissions allow;
// or the one ebb.lib.uri names),
// submitting the application (type EBB, whose AM container runs `ebb am`),
// following it to its end, killing it, and finding a user's AM: by
// application id, or the running session (tagged ebb-session) found
// through the ResourceManager, or started.
//
// It prints nothing itself: progress goes to a callback the caller passes
// in. Errors a caller decides on are typed: ErrNoResourceManager,
// ErrNoSession, and *AppError for an application that did not succeed.
//
// The AM's side (`ebb am`) reads the same layout through StagingDir and
// the Staged* names. A small configuration and DAG also reach the AM in its
// container's token file (InlineMaxBytes, WriteInlineFiles), so the
// NodeManager starts it without a localizer run.
//
// It may import am (the client API's types), am/yarn, commit, conf, dag, hdfsfs, yarnrpc and proto; never cobra.
package yarnclient
