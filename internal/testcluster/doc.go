// Package testcluster lets integration tests find the Hadoop cluster they run
// against, normally the minicluster that scripts/minicluster/start.sh starts.
//
// It owns the contract between that script and the tests: the environment
// variable EBB_TEST_HADOOP_CONF_DIR names a HADOOP_CONF_DIR (core-site.xml,
// yarn-site.xml, hdfs-site.xml holding the live addresses); for a
// minicluster, its parent directory also holds cluster.env (KEY=value lines:
// RM_WEBAPP, NAMENODE, NM_LOG_DIRS, ...) and a ready marker present while the
// cluster runs.
//
// Without the variable an integration test skips with a loud reason, except
// under CI=true, where a missing cluster is a failure: CI must not pass by
// testing nothing.
//
//	export EBB_TEST_HADOOP_CONF_DIR=$(scripts/minicluster/start.sh)
//	go test ./...
//	scripts/minicluster/stop.sh
//
// It imports no other ebb package; it is for tests.
package testcluster
