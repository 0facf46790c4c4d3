package ebb.minicluster;

import java.nio.file.Path;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;

/**
 * The configuration both clusters start from: small-box settings so that a
 * 2-core test machine schedules quickly and keeps container directories for
 * assertions. Why each value: see the comments; the list is also in README.md.
 */
final class Settings {
  /** Largest container a test may ask for; a test asks for more and expects this number in the error. */
  static final int MAX_ALLOCATION_MB = 2048;
  static final int MIN_ALLOCATION_MB = 64;
  static final int NM_MEMORY_MB = 4096;
  static final int NM_VCORES = 4;
  /** How often NodeManagers upload the rolled logs of running containers. */
  static final int ROLL_MONITORING_SECS = 5;

  private Settings() {}

  static Configuration base(Path runDir, Main.Options opts) {
    Configuration c = new Configuration();
    c.set("hadoop.tmp.dir", runDir.resolve("tmp").toString());

    // Scheduler: the default minimum (1024) would round every small ask up.
    c.setInt("yarn.scheduler.minimum-allocation-mb", MIN_ALLOCATION_MB);
    c.setInt("yarn.scheduler.maximum-allocation-mb", MAX_ALLOCATION_MB);
    c.setInt("yarn.scheduler.maximum-allocation-vcores", NM_VCORES);
    // One queue with everything, and AMs may use all of it: tests run several
    // applications (sessions) at once.
    c.set("yarn.scheduler.capacity.root.queues", "default");
    c.set("yarn.scheduler.capacity.root.default.capacity", "100");
    c.set("yarn.scheduler.capacity.root.default.maximum-capacity", "100");
    c.set("yarn.scheduler.capacity.maximum-am-resource-percent", "1.0");
    // All NodeManagers share this host name; with the port in the node name
    // node-level requests can name one of them ("host:port").
    c.setBoolean("yarn.scheduler.include-port-in-node-name", true);
    // Faster node heartbeats mean faster allocations (default 1000 ms).
    c.setInt("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", 100);
    c.setInt("yarn.resourcemanager.am.max-attempts", 2);

    // NodeManagers. MiniYARNCluster overwrites yarn.nodemanager.resource.memory-mb
    // with this minicluster key, so set the latter.
    c.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb", NM_MEMORY_MB);
    c.setInt("yarn.nodemanager.resource.cpu-vcores", NM_VCORES);
    // A test box's disk is often fuller than the default 90%: an unhealthy
    // node gets no containers at all.
    c.setFloat("yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", 99.0f);
    c.setInt("yarn.nodemanager.disk-health-checker.min-free-space-per-disk-mb", 0);
    // Tests read container logs and work dirs after the application ends.
    c.setInt("yarn.nodemanager.delete.debug-delay-sec", 3600);
    // Containers are real processes on a shared box; Go binaries reserve
    // much virtual memory.
    c.setBoolean("yarn.nodemanager.vmem-check-enabled", false);
    c.setBoolean("yarn.nodemanager.pmem-check-enabled", false);
    // How long an NM waits for a killed container's process (default 5 s);
    // it also bounds each NM's wait for its applications when stopping.
    c.setInt("yarn.nodemanager.process-kill-wait.ms", 2000);
    // MapReduce's shuffle service on every NodeManager, so MapReduce jobs
    // (the MR-vs-ebb benchmark, scripts/bench, and its smoke test) run on the
    // same cluster as ebb's tests. Port 0: the three NodeManagers share one
    // host; each tells MR's AM its bound port through the service metadata.
    // Not in the secure cluster: nothing runs MapReduce there.
    if (!opts.secure) {
      c.set("yarn.nodemanager.aux-services", "mapreduce_shuffle");
      c.set("yarn.nodemanager.aux-services.mapreduce_shuffle.class", "org.apache.hadoop.mapred.ShuffleHandler");
      c.setInt("mapreduce.shuffle.port", 0);
    }
    // Log aggregation into HDFS, rolling every few seconds, so that a test
    // sees `yarn logs` show ebb's rolled logs while an application runs.
    // Local logs stay for the tests that read the NodeManagers' log dirs:
    // the NM deletes what it uploaded through its DeletionService, which
    // waits yarn.nodemanager.delete.debug-delay-sec. Hadoop raises any
    // roll interval under an hour to an hour unless debug-enabled is set.
    // Not in the secure cluster: its tests need none, and its NMs would
    // upload with the applications' delegation tokens, one more way for
    // a token test to fail.
    c.setBoolean("yarn.log-aggregation-enable", !opts.secure);
    c.set("yarn.nodemanager.remote-app-log-dir", runDir.resolve("app-logs").toString());
    if (!opts.secure) {
      c.setInt("yarn.nodemanager.log-aggregation.roll-monitoring-interval-seconds", ROLL_MONITORING_SECS);
      c.setBoolean("yarn.nodemanager.log-aggregation.debug-enabled", true);
    }

    // HDFS: one DataNode, so one replica; permissions stay on (the staging
    // directory's mode is part of what ebb tests).
    c.setInt("dfs.replication", 1);
    c.set("hdfs.minidfs.basedir", runDir.resolve("dfs").toString());
    // Let any user act as a proxy in tests run as root.
    c.set("hadoop.proxyuser.root.hosts", "*");
    c.set("hadoop.proxyuser.root.groups", "*");

    for (Map.Entry<String, String> e : opts.overrides.entrySet()) {
      c.set(e.getKey(), e.getValue());
    }
    return c;
  }
}
