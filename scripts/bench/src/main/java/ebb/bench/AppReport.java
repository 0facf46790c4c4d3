package ebb.bench;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Prints what the ResourceManager says about one ended application, as
 * {@code yarn application -status} would, in KEY=value lines for
 * mr-vs-ebb.sh: its type, state and final status, start and finish times
 * (ms), and the aggregate resource usage of all its containers
 * (ApplicationResourceUsageReport: MB-seconds and vcore-seconds).
 *
 * <p>Usage: {@code AppReport APPLICATION_ID [WAIT_SECONDS]}, with the
 * cluster's HADOOP_CONF_DIR first on the class path. A client may see its
 * job end a moment before the RM moves the application to a final state, and
 * only then are the usage figures final; so it waits for a final state, up to
 * WAIT_SECONDS (default 60), and exits 1 if none comes.
 */
public final class AppReport {
  private AppReport() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: ebb.bench.AppReport APPLICATION_ID [WAIT_SECONDS]");
      System.exit(2);
    }
    ApplicationId id = ApplicationId.fromString(args[0]);
    long waitMs = (args.length > 1 ? Long.parseLong(args[1]) : 60) * 1000;
    YarnConfiguration conf = new YarnConfiguration();
    // Bounded calls: a dead RM must not hang the benchmark.
    conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_MAX_WAIT_MS, 30_000);
    conf.setInt("ipc.client.rpc-timeout.ms", 30_000);
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(conf);
    yc.start();
    try {
      long deadline = System.currentTimeMillis() + waitMs;
      ApplicationReport r = yc.getApplicationReport(id);
      while (!ended(r.getYarnApplicationState())) {
        if (System.currentTimeMillis() >= deadline) {
          System.err.printf("AppReport: %s still %s after %d s%n", id, r.getYarnApplicationState(), waitMs / 1000);
          System.exit(1);
        }
        Thread.sleep(200);
        r = yc.getApplicationReport(id);
      }
      ApplicationResourceUsageReport u = r.getApplicationResourceUsageReport();
      System.out.println("APP=" + id);
      System.out.println("TYPE=" + r.getApplicationType());
      System.out.println("STATE=" + r.getYarnApplicationState());
      System.out.println("FINAL=" + r.getFinalApplicationStatus());
      System.out.println("START_MS=" + r.getStartTime());
      System.out.println("FINISH_MS=" + r.getFinishTime());
      System.out.println("MB_SECONDS=" + u.getMemorySeconds());
      System.out.println("VCORE_SECONDS=" + u.getVcoreSeconds());
    } finally {
      yc.stop();
    }
  }

  private static boolean ended(YarnApplicationState s) {
    return s == YarnApplicationState.FINISHED || s == YarnApplicationState.FAILED || s == YarnApplicationState.KILLED;
  }
}
