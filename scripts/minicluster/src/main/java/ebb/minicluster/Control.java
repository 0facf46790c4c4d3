package ebb.minicluster;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ha.HAServiceProtocol;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.conf.HAUtil;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;

/**
 * A control channel for tests that inject the cluster's own faults: an HTTP
 * server on 127.0.0.1 (its address is CONTROL in cluster.env) whose verbs
 * stop and start the daemons of this JVM. Each verb answers when it is done
 * (200 and one line), or with 500 and the reason; it gives up after
 * timeout_ms (default 120000), answering 504.
 *
 *   POST /rm/stop?rm=ID       stop ResourceManager ID (rm0, rm1, ... or 0, 1, ...)
 *   POST /rm/start?rm=ID      start it again on the same ports, from the state store if
 *                             recovery is on; without HA, waits until every running
 *                             NodeManager is RUNNING at it; under HA it comes up standby
 *   POST /rm/active?rm=ID     make it the active RM (manual failover, forced) and wait
 *                             until every running NodeManager is RUNNING at it
 *   POST /rm/standby?rm=ID    make it a standby
 *   GET  /rm/state            one line per RM: "rm0 ACTIVE", "rm1 STANDBY", "rm1 STOPPED"
 *   POST /nn/stop             stop the NameNode
 *   POST /nn/start            start it on the same ports and wait until it is active
 *                             with its DataNodes
 *   POST /nm/stop?nm=I        stop NodeManager I (containers stay up only if its
 *                             recovery settings say so, as on a real node);
 *                             with containers=kill it stops as an NM that is not
 *                             supervised does, whatever its settings: it kills its
 *                             containers and leaves the RM (the next /nm/start
 *                             restores the cluster's settings)
 *   POST /nm/start?nm=I       start it again with the same ports and directories
 *                             and wait until the RM has it RUNNING
 *
 * NodeManager recovery (yarn.nodemanager.recovery.enabled) cannot be on
 * when MiniYARNCluster starts its NMs: they bind ephemeral ports, which an
 * NM with recovery refuses, and would share one recovery directory. The
 * launcher takes the key out (takeNMRecovery), starts the NMs without it,
 * and then restarts each at once on its bound port with recovery on and a
 * recovery directory of its own (RUNDIR/nm-recovery/nmI), as every later
 * /nm/start does.
 *
 * Restarting RMs needs NodeManagers that heartbeat over RPC (MiniYARNCluster's
 * default NodeManagers call the first RM in-process and never see a new one):
 * the launcher's --restartable option sets that up, and the RM verbs refuse
 * without it.
 */
final class Control {
  static final long DEFAULT_TIMEOUT_MS = 120_000;

  private final MiniYARNCluster yarn;
  private final MiniDFSCluster dfs;
  private final int nodeManagers;
  private final boolean restartable;
  private final Path runDir;
  private final boolean nmRecovery;
  private final HttpServer server;
  private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "control-verb");
    t.setDaemon(true);
    return t;
  });

  private Control(MiniYARNCluster yarn, MiniDFSCluster dfs, int nodeManagers, boolean restartable,
      Path runDir, boolean nmRecovery) throws IOException {
    this.yarn = yarn;
    this.dfs = dfs;
    this.nodeManagers = nodeManagers;
    this.restartable = restartable;
    this.runDir = runDir;
    this.nmRecovery = nmRecovery;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "control-http");
      t.setDaemon(true);
      return t;
    }));
  }

  static Control start(MiniYARNCluster yarn, MiniDFSCluster dfs, int nodeManagers, boolean restartable,
      Path runDir, boolean nmRecovery) throws Exception {
    Control c = new Control(yarn, dfs, nodeManagers, restartable, runDir, nmRecovery);
    if (nmRecovery) {
      long deadline = System.currentTimeMillis() + DEFAULT_TIMEOUT_MS;
      for (int i = 0; i < nodeManagers; i++) {
        c.stopNM(i, false);
        Main.log("NodeManager %d: %s", i, c.startNM(i, deadline));
      }
      // Clients reading the conf dir see what the NMs run with.
      yarn.getConfig().setBoolean(YarnConfiguration.NM_RECOVERY_ENABLED, true);
    }
    c.server.start();
    Main.log("control channel on %s", c.address());
    return c;
  }

  /** Takes yarn.nodemanager.recovery.enabled out of conf; true if it was on (see the class comment). */
  static boolean takeNMRecovery(Configuration conf) {
    boolean on = conf.getBoolean(YarnConfiguration.NM_RECOVERY_ENABLED, false);
    if (on) {
      conf.setBoolean(YarnConfiguration.NM_RECOVERY_ENABLED, false);
    }
    return on;
  }

  String address() {
    InetSocketAddress a = server.getAddress();
    return a.getHostString() + ":" + a.getPort();
  }

  void stop() {
    server.stop(0);
    worker.shutdownNow();
  }

  /**
   * Before the cluster starts, under --restartable: fixed ports for every
   * RM service (picked free here), NodeManagers that heartbeat over RPC and
   * retry a gone RM every half second, and under HA manual failover (the
   * embedded elector needs ZooKeeper) with a cluster id.
   */
  static void prepare(Configuration conf, int resourceManagers) throws IOException {
    conf.setBoolean("yarn.minicluster.fixed.ports", true);
    conf.setBoolean("yarn.minicluster.use-rpc", true);
    conf.setLong("yarn.nodemanager.resourcemanager.connect.retry-interval.ms", 500);
    String host = MiniYARNCluster.getHostname();
    if (resourceManagers > 1) {
      conf.setBoolean(YarnConfiguration.RM_HA_ENABLED, true);
      setDefault(conf, YarnConfiguration.AUTO_FAILOVER_ENABLED, "false");
      setDefault(conf, YarnConfiguration.RM_CLUSTER_ID, "ebb-test");
      StringBuilder ids = new StringBuilder();
      for (int i = 0; i < resourceManagers; i++) {
        ids.append(i == 0 ? "" : ",").append("rm").append(i);
      }
      setDefault(conf, YarnConfiguration.RM_HA_IDS, ids.toString());
      for (String id : HAUtil.getRMHAIds(conf)) {
        for (String key : YarnConfiguration.getServiceAddressConfKeys(conf)) {
          setDefault(conf, HAUtil.addSuffix(key, id), host + ":" + freePort());
        }
      }
    } else {
      for (String key : YarnConfiguration.getServiceAddressConfKeys(conf)) {
        setDefault(conf, key, host + ":" + freePort());
      }
    }
  }

  private static void setDefault(Configuration conf, String key, String value) {
    if (conf.get(key) == null || conf.getPropertySources(key) == null
        || conf.getPropertySources(key)[conf.getPropertySources(key).length - 1].endsWith("-default.xml")) {
      conf.set(key, value);
    }
  }

  private static final java.util.Random PORTS = new java.util.Random();

  /**
   * A free port below the kernel's ephemeral range (32768 and up on Linux).
   * A standby RM binds its fixed ports only when it becomes active, long
   * after they were picked: a port picked in the ephemeral range can be
   * taken meanwhile as the local port of any outgoing connection (seen in
   * CI, with seven clusters on one machine: "Address already in use" on
   * transitionToActive). Below that range only an explicit bind takes it.
   */
  private static int freePort() throws IOException {
    for (int i = 0; i < 1000; i++) {
      int port = 20000 + PORTS.nextInt(12000);
      try (ServerSocket s = new ServerSocket(port)) {
        s.setReuseAddress(true);
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free port in 20000-31999 after 1000 tries");
  }

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    Map<String, String> q = query(ex.getRequestURI());
    long timeoutMs = DEFAULT_TIMEOUT_MS;
    int code;
    String body;
    try {
      if (q.containsKey("timeout_ms")) {
        timeoutMs = Long.parseLong(q.get("timeout_ms"));
      }
      Callable<String> verb = verb(path, q, timeoutMs);
      long t0 = System.nanoTime();
      Main.log("control: %s %s", path, q);
      Future<String> f = worker.submit(verb);
      try {
        body = f.get(timeoutMs, TimeUnit.MILLISECONDS);
        code = 200;
        Main.log("control: %s done in %d ms: %s", path, (System.nanoTime() - t0) / 1_000_000, body);
      } catch (TimeoutException e) {
        f.cancel(true);
        code = 504;
        body = path + " not done after timeout_ms=" + timeoutMs;
      }
    } catch (IllegalArgumentException e) {
      code = 400;
      body = e.getMessage();
    } catch (java.util.concurrent.ExecutionException e) {
      code = 500;
      body = path + ": " + e.getCause();
      Main.log("control: %s failed: %s", path, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      code = 500;
      body = path + ": interrupted";
    }
    byte[] b = (body + "\n").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    ex.sendResponseHeaders(code, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }

  private Callable<String> verb(String path, Map<String, String> q, long timeoutMs) {
    long deadline = System.currentTimeMillis() + timeoutMs;
    switch (path) {
      case "/rm/state":
        return this::rmState;
      case "/rm/stop": {
        int i = rmIndex(q);
        return () -> stopRM(i);
      }
      case "/rm/start": {
        int i = rmIndex(q);
        return () -> startRM(i, deadline);
      }
      case "/rm/active": {
        int i = rmIndex(q);
        return () -> transition(i, true, deadline);
      }
      case "/rm/standby": {
        int i = rmIndex(q);
        return () -> transition(i, false, deadline);
      }
      case "/nn/stop":
        return () -> {
          dfs.shutdownNameNode(0);
          return "NameNode stopped";
        };
      case "/nn/start":
        return () -> {
          dfs.restartNameNode(0, true);
          return "NameNode up at " + dfs.getURI(0);
        };
      case "/nm/stop": {
        int i = nmIndex(q);
        String containers = q.getOrDefault("containers", "");
        if (!containers.isEmpty() && !containers.equals("kill")) {
          throw new IllegalArgumentException("containers=" + containers + ": want kill, or no containers");
        }
        boolean kill = containers.equals("kill");
        return () -> stopNM(i, kill);
      }
      case "/nm/start": {
        int i = nmIndex(q);
        return () -> startNM(i, deadline);
      }
      default:
        throw new IllegalArgumentException("unknown verb " + path
            + "; known: /rm/stop /rm/start /rm/active /rm/standby /rm/state /nn/stop /nn/start /nm/stop /nm/start");
    }
  }

  private int rmIndex(Map<String, String> q) {
    if (!restartable) {
      throw new IllegalArgumentException("the RM verbs need a cluster started with --restartable"
          + " (NodeManagers that heartbeat over RPC)");
    }
    String id = q.getOrDefault("rm", "0");
    int n = yarn.getNumOfResourceManager();
    for (int i = 0; i < n; i++) {
      if (id.equals(Integer.toString(i)) || id.equals(rmId(i))) {
        return i;
      }
    }
    throw new IllegalArgumentException("no RM " + id + " (have " + n + ": rm0.." + "rm" + (n - 1) + ")");
  }

  private String rmId(int i) {
    return "rm" + i;
  }

  private int nmIndex(Map<String, String> q) {
    String v = q.get("nm");
    try {
      int i = Integer.parseInt(v);
      if (i >= 0 && i < nodeManagers) {
        return i;
      }
    } catch (NumberFormatException e) {
      // the error below
    }
    throw new IllegalArgumentException("nm=" + v + ": want 0.." + (nodeManagers - 1));
  }

  private String rmState() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < yarn.getNumOfResourceManager(); i++) {
      sb.append(i == 0 ? "" : "\n").append(rmId(i)).append(' ').append(state(i));
    }
    return sb.toString();
  }

  private String state(int i) throws IOException {
    ResourceManager rm = yarn.getResourceManager(i);
    if (rm == null || rm.getServiceState() != org.apache.hadoop.service.Service.STATE.STARTED) {
      return "STOPPED";
    }
    if (!rm.getRMContext().isHAEnabled()) {
      return "ACTIVE";
    }
    return rm.getRMContext().getRMAdminService().getServiceStatus().getState().name();
  }

  private String stopRM(int i) {
    yarn.stopResourceManager(i);
    return rmId(i) + " stopped";
  }

  private String startRM(int i, long deadline) throws Exception {
    if (yarn.getResourceManager(i) != null) {
      throw new IllegalStateException(rmId(i) + " is running; stop it first");
    }
    yarn.restartResourceManager(i);
    ResourceManager rm = yarn.getResourceManager(i);
    GuicePipelines.pinResourceManager(rm);
    if (!rm.getRMContext().isHAEnabled()) {
      ProxyAddress.fix(rm);
      waitNodesRunning(rm, deadline);
    }
    return rmId(i) + " started, " + state(i);
  }

  private String transition(int i, boolean active, long deadline) throws Exception {
    ResourceManager rm = yarn.getResourceManager(i);
    if (rm == null) {
      throw new IllegalStateException(rmId(i) + " is stopped");
    }
    HAServiceProtocol.StateChangeRequestInfo req =
        new HAServiceProtocol.StateChangeRequestInfo(HAServiceProtocol.RequestSource.REQUEST_BY_USER_FORCED);
    if (active) {
      rm.getRMContext().getRMAdminService().transitionToActive(req);
      // The active services and their context are built anew on each
      // transition: the proxy address must be set again.
      ProxyAddress.fix(rm);
      waitNodesRunning(rm, deadline);
    } else {
      rm.getRMContext().getRMAdminService().transitionToStandby(req);
    }
    return rmId(i) + " " + state(i);
  }

  /** Every NodeManager that runs is RUNNING at rm. */
  private void waitNodesRunning(ResourceManager rm, long deadline) throws Exception {
    while (true) {
      int want = 0;
      int running = 0;
      StringBuilder missing = new StringBuilder();
      for (int i = 0; i < nodeManagers; i++) {
        NodeManager nm = yarn.getNodeManager(i);
        if (nm == null || nm.getServiceState() != org.apache.hadoop.service.Service.STATE.STARTED) {
          continue;
        }
        want++;
        NodeId id = nm.getNMContext().getNodeId();
        RMNode node = rm.getRMContext().getRMNodes().get(id);
        if (node != null && node.getState() == NodeState.RUNNING) {
          running++;
        } else {
          missing.append(' ').append(id).append('=').append(node == null ? "unknown" : node.getState());
        }
      }
      if (running == want) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException(running + " of " + want + " NodeManagers RUNNING at the RM by the deadline;"
            + missing);
      }
      Thread.sleep(100);
    }
  }

  private String stopNM(int i, boolean kill) {
    NodeManager nm = yarn.getNodeManager(i);
    if (nm == null || nm.getServiceState() == org.apache.hadoop.service.Service.STATE.STOPPED) {
      throw new IllegalStateException("NodeManager " + i + " is not running");
    }
    if (kill) {
      // The NM and its services read this key from the one configuration
      // object they share when they stop: unsupervised, they kill their
      // containers and unregister, as an NM without recovery does.
      nm.getConfig().setBoolean(YarnConfiguration.NM_RECOVERY_SUPERVISED, false);
    }
    nm.stop();
    return "NodeManager " + i + " (" + nm.getNMContext().getNodeId() + ") stopped"
        + (kill ? ", its containers killed" : "");
  }

  private String startNM(int i, long deadline) throws Exception {
    NodeManager old = yarn.getNodeManager(i);
    if (old.getServiceState() != org.apache.hadoop.service.Service.STATE.STOPPED) {
      throw new IllegalStateException("NodeManager " + i + " is running; stop it first");
    }
    // The old NM's configuration holds its bound ports and its directories;
    // the RM's addresses come from the cluster's (bound by now).
    YarnConfiguration conf = new YarnConfiguration(old.getConfig());
    for (Map.Entry<String, String> e : yarn.getConfig()) {
      if (e.getKey().startsWith("yarn.resourcemanager.")) {
        conf.set(e.getKey(), yarn.getConfig().get(e.getKey()));
      }
    }
    NodeId oldId = old.getNMContext().getNodeId();
    conf.set(YarnConfiguration.NM_ADDRESS, oldId.toString());
    conf.set(YarnConfiguration.NM_WEBAPP_ADDRESS, oldId.getHost() + ":" + old.getNMContext().getHttpPort());
    if (nmRecovery) {
      conf.setBoolean(YarnConfiguration.NM_RECOVERY_ENABLED, true);
      conf.set(YarnConfiguration.NM_RECOVERY_DIR, runDir.resolve("nm-recovery").resolve("nm" + i).toString());
    }
    // What a /nm/stop with containers=kill changed goes back to the cluster's setting.
    conf.setBoolean(YarnConfiguration.NM_RECOVERY_SUPERVISED, yarn.getConfig().getBoolean(
        YarnConfiguration.NM_RECOVERY_SUPERVISED, YarnConfiguration.DEFAULT_NM_RECOVERY_SUPERVISED));
    NodeManager nm = new NodeManager();
    nm.init(conf);
    nm.start();
    replaceNodeManager(i, nm);
    GuicePipelines.pinNodeManager(nm);
    ResourceManager rm = yarn.getResourceManager();
    if (rm != null) {
      waitNodesRunning(rm, deadline);
    }
    return "NodeManager " + i + " started as " + nm.getNMContext().getNodeId();
  }

  /** MiniYARNCluster keeps its NMs in a private array; getNodeManager(i) and its stop read it. */
  private void replaceNodeManager(int i, NodeManager nm) throws ReflectiveOperationException {
    Field f = MiniYARNCluster.class.getDeclaredField("nodeManagers");
    f.setAccessible(true);
    ((NodeManager[]) f.get(yarn))[i] = nm;
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> m = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return m;
    }
    for (String kv : raw.split("&")) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        m.put(java.net.URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
            java.net.URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return m;
  }

  /** The RM addresses clients need, per RM id under HA, for cluster.env. */
  static void env(Configuration live, int resourceManagers, Map<String, String> env) {
    if (resourceManagers <= 1) {
      return;
    }
    // The plain keys would read Hadoop's defaults: no such RM.
    for (String k : new String[] {"RM_ADDRESS", "RM_SCHEDULER_ADDRESS", "RM_ADMIN_ADDRESS", "RM_WEBAPP"}) {
      env.remove(k);
    }
    List<String> ids = new java.util.ArrayList<>(HAUtil.getRMHAIds(live));
    env.put("RM_IDS", String.join(",", ids));
    for (String id : ids) {
      String p = id.toUpperCase(java.util.Locale.ROOT) + "_";
      env.put(p + "ADDRESS", live.get(HAUtil.addSuffix(YarnConfiguration.RM_ADDRESS, id)));
      env.put(p + "SCHEDULER_ADDRESS", live.get(HAUtil.addSuffix(YarnConfiguration.RM_SCHEDULER_ADDRESS, id)));
      env.put(p + "WEBAPP", live.get(HAUtil.addSuffix(YarnConfiguration.RM_WEBAPP_ADDRESS, id)));
      env.put(p + "ADMIN_ADDRESS", live.get(HAUtil.addSuffix(YarnConfiguration.RM_ADMIN_ADDRESS, id)));
    }
  }
}
