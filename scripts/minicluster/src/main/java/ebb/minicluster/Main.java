/*
 * ebb's minicluster launcher: one JVM running Hadoop's MiniDFSCluster
 * (NameNode + DataNodes) and MiniYARNCluster (ResourceManager + NodeManagers)
 * on ephemeral ports, for ebb's integration tests.
 *
 * Usage: Main RUNDIR [--no-stdin] [--secure] [--nodemanagers=N] [--datanodes=N]
 *             [--resourcemanagers=N] [--restartable] [--set key=value]...
 *
 * With --secure it first starts a Kerberos KDC (Secure.java) and runs both
 * clusters with Kerberos authentication.
 *
 * When the clusters are up and the RM reports every NodeManager RUNNING it
 * writes, under RUNDIR:
 *   conf/core-site.xml, conf/yarn-site.xml, conf/hdfs-site.xml  the live configuration
 *   cluster.env                                                  KEY=value lines for tests
 *   ready                                                        written last, removed first on shutdown
 * Tests stop and start its daemons through Control (CONTROL in cluster.env);
 * --restartable (implied by --resourcemanagers=2 or more, which is RM HA)
 * makes the ResourceManagers restartable.
 * It stays up until stdin reaches end of file (unless --no-stdin) or the JVM
 * gets SIGTERM/SIGINT, then stops both clusters.
 */
package ebb.minicluster;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.util.VersionInfo;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;

import sun.misc.Signal;

public final class Main {
  /** How long the RM may take to see every NodeManager RUNNING. */
  private static final long NODES_DEADLINE_MS = 180_000;

  private final Options opts;
  private final Path runDir;
  private final Path confDir;
  private final Path readyFile;
  private MiniDFSCluster dfs;
  private MiniYARNCluster yarn;
  private Secure secure;
  private Control control;
  private final CountDownLatch stopRequested = new CountDownLatch(1);

  private Main(Options opts) {
    this.opts = opts;
    this.runDir = opts.runDir.toAbsolutePath().normalize();
    this.confDir = runDir.resolve("conf");
    this.readyFile = runDir.resolve("ready");
  }

  public static void main(String[] args) throws Exception {
    Options opts;
    try {
      opts = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("minicluster: " + e.getMessage());
      System.err.println(Options.USAGE);
      System.exit(2);
      return;
    }
    Main m = new Main(opts);
    // SIGTERM and SIGINT only ask main to stop: Hadoop's services remove
    // their own shutdown hooks while stopping, which is refused once the JVM
    // is shutting down, so the clusters must be stopped before exit.
    for (String sig : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(sig), s -> {
        log("got SIG%s, stopping", sig);
        m.stopRequested.countDown();
      });
    }
    try {
      m.start();
    } catch (Throwable t) {
      System.err.println("minicluster: start failed: " + t);
      t.printStackTrace();
      m.stop();
      System.exit(1);
      return;
    }
    if (opts.watchStdin) {
      Thread w = new Thread(() -> {
        drain(System.in);
        log("stdin closed, stopping");
        m.stopRequested.countDown();
      }, "stdin-watch");
      w.setDaemon(true);
      w.start();
    }
    m.stopRequested.await();
    m.stop();
    System.exit(0);
  }

  private void start() throws Exception {
    Files.createDirectories(runDir);
    // A stale marker from an earlier run must not make anyone think we are up.
    Files.deleteIfExists(readyFile);
    Files.createDirectories(confDir);

    long t0 = System.nanoTime();
    Configuration conf = Settings.base(runDir, opts);
    if (opts.secure) {
      secure = new Secure(runDir);
      secure.startKdc(opts.ticketLifetimeMs);
      secure.configure(conf);
      secure.loginAsService();
    }

    dfs = new MiniDFSCluster.Builder(conf, runDir.resolve("dfs").toFile())
        .numDataNodes(opts.dataNodes)
        .format(true)
        .build();
    dfs.waitClusterUp();
    // MiniDFSCluster puts fs.defaultFS into conf; the NameNode's http address
    // is bound only now, so copy it in for WebHDFS users.
    conf.set("dfs.namenode.http-address",
        hostPort(dfs.getNameNode().getHttpAddress()));
    log("HDFS up at %s after %d ms", dfs.getURI(), ms(t0));
    if (secure != null) {
      secure.makeUserDirs(dfs.getFileSystem());
    }

    YarnConfiguration yconf = new YarnConfiguration(conf);
    if (opts.restartable) {
      Control.prepare(yconf, opts.resourceManagers);
    }
    boolean nmRecovery = Control.takeNMRecovery(yconf);
    yarn = new MiniYARNCluster("ebb", opts.resourceManagers, opts.nodeManagers, 1, 1);
    yarn.init(yconf);
    yarn.start();
    GuicePipelines.pin(yarn, opts.nodeManagers);
    Configuration live = yarn.getConfig();
    ProxyAddress.fix(yarn.getResourceManager());
    waitForNodes(live, opts.nodeManagers);
    // Tests read the RM's REST API (applications, containers): prove it answers.
    checkHttp("http://" + yarn.getResourceManager().getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS)
        + "/ws/v1/cluster/info");
    control = Control.start(yarn, dfs, opts.nodeManagers, opts.restartable, runDir, nmRecovery);
    log("YARN up with %d RUNNING NodeManagers after %d ms", opts.nodeManagers, ms(t0));

    ConfWriter.write(secure == null ? live : secure.clientView(live), confDir);
    writeEnv(live);
    writeAtomically(readyFile, "ready\n");
    log("ready: HADOOP_CONF_DIR=%s", confDir);
  }

  /** Asks the RM over its client RPC, as a test would, until n nodes are RUNNING. */
  private static void waitForNodes(Configuration live, int n) throws Exception {
    YarnClient client = YarnClient.createYarnClient();
    client.init(live);
    client.start();
    try {
      long deadline = System.currentTimeMillis() + NODES_DEADLINE_MS;
      int seen = 0;
      while (System.currentTimeMillis() < deadline) {
        List<NodeReport> nodes = client.getNodeReports(NodeState.RUNNING);
        seen = nodes.size();
        if (seen >= n) {
          return;
        }
        Thread.sleep(100);
      }
      throw new IOException("only " + seen + " of " + n
          + " NodeManagers RUNNING after " + NODES_DEADLINE_MS + " ms");
    } finally {
      client.stop();
    }
  }

  private static void checkHttp(String url) throws IOException {
    java.net.HttpURLConnection c = (java.net.HttpURLConnection) new java.net.URL(url).openConnection();
    c.setConnectTimeout(10_000);
    c.setReadTimeout(10_000);
    c.setRequestProperty("Accept", "application/json");
    try {
      int code = c.getResponseCode();
      if (code != 200) {
        throw new IOException("GET " + url + ": HTTP " + code);
      }
    } finally {
      c.disconnect();
    }
  }

  private void writeEnv(Configuration live) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HADOOP_VERSION", VersionInfo.getVersion());
    env.put("RUNDIR", runDir.toString());
    env.put("HADOOP_CONF_DIR", confDir.toString());
    env.put("PID", Long.toString(ProcessHandle.current().pid()));
    env.put("RM_ADDRESS", live.get(YarnConfiguration.RM_ADDRESS));
    env.put("RM_SCHEDULER_ADDRESS", live.get(YarnConfiguration.RM_SCHEDULER_ADDRESS));
    env.put("RM_ADMIN_ADDRESS", live.get(YarnConfiguration.RM_ADMIN_ADDRESS));
    env.put("RM_WEBAPP", live.get(YarnConfiguration.RM_WEBAPP_ADDRESS));
    env.put("NAMENODE", dfs.getURI().toString());
    env.put("NAMENODE_HTTP", live.get("dfs.namenode.http-address"));
    env.put("MIN_ALLOCATION_MB", live.get(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB));
    env.put("MAX_ALLOCATION_MB", live.get(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB));
    env.put("MAX_ALLOCATION_VCORES", live.get(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES));
    env.put("NM_MEMORY_MB", live.get(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB));
    env.put("NM_VCORES", live.get(YarnConfiguration.NM_VCORES));
    env.put("NM_COUNT", Integer.toString(opts.nodeManagers));
    env.put("SECURE", Boolean.toString(secure != null));
    env.put("LOG_AGGREGATION", live.get(YarnConfiguration.LOG_AGGREGATION_ENABLED));
    env.put("CONTROL", control.address());
    env.put("RESTARTABLE", Boolean.toString(opts.restartable));
    Control.env(live, opts.resourceManagers, env);
    // This JVM's java and class path: a test runs Hadoop's own command-line
    // classes (LogsCLI for `yarn logs`) with them and HADOOP_CONF_DIR first.
    env.put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    env.put("CLASSPATH", System.getProperty("java.class.path"));
    if (secure != null) {
      secure.env(env);
    }

    // Each NodeManager has its own directories; tests look for container logs
    // under <log dir>/<application>/<container>/.
    List<String> logDirs = new ArrayList<>();
    List<String> localDirs = new ArrayList<>();
    for (int i = 0; i < opts.nodeManagers; i++) {
      NodeManager nm = yarn.getNodeManager(i);
      Configuration nmConf = nm.getConfig();
      String p = "NM" + i + "_";
      env.put(p + "NODE_ID", nm.getNMContext().getNodeId().toString());
      env.put(p + "HTTP", nm.getNMContext().getNodeId().getHost() + ":"
          + nm.getNMContext().getHttpPort());
      env.put(p + "LOG_DIRS", nmConf.get(YarnConfiguration.NM_LOG_DIRS));
      env.put(p + "LOCAL_DIRS", nmConf.get(YarnConfiguration.NM_LOCAL_DIRS));
      logDirs.add(nmConf.get(YarnConfiguration.NM_LOG_DIRS));
      localDirs.add(nmConf.get(YarnConfiguration.NM_LOCAL_DIRS));
    }
    env.put("NM_LOG_DIRS", String.join(",", logDirs));
    env.put("NM_LOCAL_DIRS", String.join(",", localDirs));

    StringBuilder sb = new StringBuilder();
    sb.append("# Written by ebb.minicluster.Main once the cluster was ready; sh-compatible.\n");
    for (Map.Entry<String, String> e : env.entrySet()) {
      sb.append(e.getKey()).append('=').append(shellQuote(e.getValue())).append('\n');
    }
    writeAtomically(runDir.resolve("cluster.env"), sb.toString());
  }

  private void stop() {
    try {
      Files.deleteIfExists(readyFile);
    } catch (IOException e) {
      System.err.println("minicluster: removing ready marker: " + e);
    }
    long t0 = System.nanoTime();
    if (control != null) {
      control.stop();
    }
    if (yarn != null) {
      stopNodeManagersInParallel();
      try {
        yarn.stop();
      } catch (Throwable t) {
        System.err.println("minicluster: stopping YARN: " + t);
      }
    }
    if (dfs != null) {
      try {
        dfs.shutdown();
      } catch (Throwable t) {
        System.err.println("minicluster: stopping HDFS: " + t);
      }
    }
    if (secure != null) {
      secure.stop();
    }
    log("stopped in %d ms", ms(t0));
  }

  /**
   * A NodeManager's stop waits for its applications and then up to 10 s for
   * its deletion and log handler executors, which hold the debug-delayed
   * deletions: about 17 s each. MiniYARNCluster stops them one after the
   * other; stopping them together keeps the whole stop near one NM's time.
   * yarn.stop() afterwards finds them stopped (stop is idempotent) and stops
   * the RM last, so the NMs could still unregister.
   */
  private void stopNodeManagersInParallel() {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < opts.nodeManagers; i++) {
      NodeManager nm = yarn.getNodeManager(i);
      if (nm == null) {
        continue;
      }
      Thread th = new Thread(() -> {
        try {
          nm.stop();
        } catch (Throwable t) {
          System.err.println("minicluster: stopping " + nm.getName() + ": " + t);
        }
      }, "stop-nm-" + i);
      th.start();
      threads.add(th);
    }
    for (Thread th : threads) {
      try {
        th.join(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  static String hostPort(java.net.InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }

  /** Quotes for sh only when needed, so the common case stays readable. */
  static String shellQuote(String v) {
    if (v == null) {
      return "";
    }
    if (v.matches("[A-Za-z0-9_./:,@%+=-]*")) {
      return v;
    }
    return "'" + v.replace("'", "'\\''") + "'";
  }

  /** Readers poll for these files: never let them see half a file. */
  static void writeAtomically(Path target, String content) throws IOException {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    Files.writeString(tmp, content);
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void drain(InputStream in) {
    byte[] buf = new byte[4096];
    try {
      while (in.read(buf) >= 0) {
        // only end of file matters
      }
    } catch (IOException e) {
      // a broken stdin means our parent is gone: stop as on end of file
    }
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  static void log(String fmt, Object... args) {
    System.err.println("minicluster: " + String.format(fmt, args));
  }

  /** Command-line options; kept apart so main stays about the life cycle. */
  static final class Options {
    static final String USAGE =
        "usage: ebb.minicluster.Main RUNDIR [--no-stdin] [--secure] [--ticket-lifetime-ms=N]"
        + " [--nodemanagers=N] [--datanodes=N] [--resourcemanagers=N] [--restartable] [--set key=value]...";
    Path runDir;
    boolean watchStdin = true;
    boolean secure;
    long ticketLifetimeMs;
    int nodeManagers = 3;
    int dataNodes = 1;
    int resourceManagers = 1;
    boolean restartable;
    final Map<String, String> overrides = new LinkedHashMap<>();

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (a.equals("--no-stdin")) {
          o.watchStdin = false;
        } else if (a.equals("--secure")) {
          o.secure = true;
        } else if (a.startsWith("--ticket-lifetime-ms=")) {
          o.ticketLifetimeMs = positive(a);
        } else if (a.startsWith("--nodemanagers=")) {
          o.nodeManagers = positive(a);
        } else if (a.startsWith("--datanodes=")) {
          o.dataNodes = positive(a);
        } else if (a.startsWith("--resourcemanagers=")) {
          o.resourceManagers = positive(a);
        } else if (a.equals("--restartable")) {
          o.restartable = true;
        } else if (a.equals("--set") && i + 1 < args.length) {
          String kv = args[++i];
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException("--set wants key=value, got " + kv);
          }
          o.overrides.put(kv.substring(0, eq), kv.substring(eq + 1));
        } else if (!a.startsWith("-") && o.runDir == null) {
          o.runDir = new File(a).toPath();
        } else {
          throw new IllegalArgumentException("unknown argument " + a);
        }
      }
      if (o.runDir == null) {
        throw new IllegalArgumentException("RUNDIR missing");
      }
      // Under HA the NodeManagers must follow the active RM over RPC.
      o.restartable |= o.resourceManagers > 1;
      return o;
    }

    private static int positive(String a) {
      String v = a.substring(a.indexOf('=') + 1);
      try {
        int n = Integer.parseInt(v);
        if (n > 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // fall through to the error below
      }
      throw new IllegalArgumentException(a + ": want a positive number");
    }
  }
}
