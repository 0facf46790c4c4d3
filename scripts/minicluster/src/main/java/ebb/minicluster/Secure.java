package ebb.minicluster;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.Properties;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The secure mode's Kerberos side: a MiniKdc in this JVM, the principals and
 * keytabs, a krb5.conf for clients, and the configuration keys that turn on
 * Kerberos in HDFS and YARN.
 *
 * One service principal, hadoop/localhost, serves every daemon. All daemons
 * share this JVM, and Hadoop keeps one process-wide login user: each
 * daemon's keytab login replaces the previous one, and every RPC server then
 * accepts only tickets for whoever logged in last (Hadoop's own tests of
 * secure mini clusters use one principal for the same reason). So the
 * daemons are configured with the literal name, and the HADOOP_CONF_DIR
 * written for clients says hadoop/_HOST, as a real cluster's does: a client
 * replaces _HOST with the canonical name of the server's address, and every
 * address here is 127.0.0.1, whose name is localhost.
 */
final class Secure {
  static final String SERVICE = "hadoop";
  static final String USER = "ebb";

  private final java.nio.file.Path dir;
  private final String host;
  private MiniKdc kdc;

  Secure(java.nio.file.Path runDir) throws IOException {
    this.dir = runDir.resolve("kdc");
    // Principals exist for the machine's name too, for clients that do not
    // take the canonical name.
    this.host = InetAddress.getLocalHost().getHostName().toLowerCase();
  }

  /** Starts the KDC and writes keytabs and krb5.conf. */
  void startKdc(long maxTicketLifetimeMs) throws Exception {
    Files.createDirectories(dir);
    Properties p = MiniKdc.createConf();
    p.setProperty(MiniKdc.KDC_BIND_ADDRESS, "localhost");
    p.setProperty(MiniKdc.KDC_PORT, "0");
    p.setProperty(MiniKdc.TRANSPORT, "TCP");
    if (maxTicketLifetimeMs > 0) {
      p.setProperty(MiniKdc.MAX_TICKET_LIFETIME, Long.toString(maxTicketLifetimeMs));
    }
    kdc = new MiniKdc(p, dir.toFile());
    kdc.start();
    Set<String> names = new LinkedHashSet<>();
    for (String h : new String[] {host, "localhost"}) {
      names.add(SERVICE + "/" + h);
      names.add("HTTP/" + h);
    }
    kdc.createPrincipal(serviceKeytab().toFile(), names.toArray(new String[0]));
    kdc.createPrincipal(userKeytab().toFile(), USER);
    for (java.nio.file.Path k : new java.nio.file.Path[] {serviceKeytab(), userKeytab()}) {
      Files.setPosixFilePermissions(k, PosixFilePermissions.fromString("rw-------"));
    }
    writeKrb5Conf();
    Main.log("KDC up at localhost:%d, realm %s", kdc.getPort(), kdc.getRealm());
  }

  /**
   * Our own krb5.conf for clients (Go, kinit): MiniKdc's own file names
   * the KDC but says nothing about DNS or reverse lookups, which a test box
   * cannot answer quickly.
   */
  private void writeKrb5Conf() throws IOException {
    String realm = kdc.getRealm();
    String s = "# Written by ebb.minicluster.Main for the test KDC.\n"
        + "[libdefaults]\n"
        + "  default_realm = " + realm + "\n"
        + "  dns_lookup_kdc = false\n"
        + "  dns_lookup_realm = false\n"
        + "  rdns = false\n"
        + "  udp_preference_limit = 1\n"
        + "  ticket_lifetime = 24h\n"
        + "  forwardable = true\n"
        + "\n[realms]\n"
        + "  " + realm + " = {\n"
        + "    kdc = localhost:" + kdc.getPort() + "\n"
        + "  }\n"
        + "\n[domain_realm]\n"
        + "  localhost = " + realm + "\n"
        + "  " + host + " = " + realm + "\n";
    Main.writeAtomically(krb5Conf(), s);
  }

  /** The Kerberos keys for both clusters; the launcher logs in through UGI afterwards. */
  void configure(Configuration c) {
    String realm = kdc.getRealm();
    String svc = servicePrincipal();
    String http = "HTTP/localhost@" + realm;
    String keytab = serviceKeytab().toString();

    c.set("hadoop.security.authentication", "kerberos");
    c.setIfUnset("hadoop.rpc.protection", "authentication");

    c.set("dfs.namenode.kerberos.principal", svc);
    c.set("dfs.namenode.keytab.file", keytab);
    c.set("dfs.datanode.kerberos.principal", svc);
    c.set("dfs.datanode.keytab.file", keytab);
    c.set("dfs.web.authentication.kerberos.principal", http);
    c.set("dfs.web.authentication.kerberos.keytab", keytab);
    // Secure HDFS needs block tokens. The DataNode would also want
    // privileged ports or SASL on data transfer with HTTPS only; a test
    // cluster is exempt with this key (data transfer stays unencrypted,
    // as on many real clusters that rely on block tokens alone).
    c.setBoolean("dfs.block.access.token.enable", true);
    c.setBoolean("ignore.secure.ports.for.testing", true);

    c.set("yarn.resourcemanager.principal", svc);
    c.set("yarn.resourcemanager.keytab", keytab);
    c.set("yarn.nodemanager.principal", svc);
    c.set("yarn.nodemanager.keytab", keytab);
    c.set("yarn.resourcemanager.webapp.spnego-principal", http);
    c.set("yarn.resourcemanager.webapp.spnego-keytab-file", keytab);
    c.set("yarn.nodemanager.webapp.spnego-principal", http);
    c.set("yarn.nodemanager.webapp.spnego-keytab-file", keytab);
    // The user's name on the cluster is the principal's short name; the
    // service principal's short name is HDFS's superuser.
    c.set("hadoop.proxyuser." + SERVICE + ".hosts", "*");
    c.set("hadoop.proxyuser." + SERVICE + ".groups", "*");
    UserGroupInformation.setConfiguration(c);
  }

  /**
   * The launcher itself (its YARN client that waits for the NodeManagers,
   * the HDFS set-up below) acts as the service principal, HDFS's superuser.
   */
  void loginAsService() throws IOException {
    UserGroupInformation.loginUserFromKeytab(servicePrincipal(), serviceKeytab().toString());
  }

  /**
   * A home for the test user, and a world-writable /tmp, as on a real
   * cluster: the user is not HDFS's superuser.
   */
  void makeUserDirs(FileSystem fs) throws IOException {
    Path home = new Path("/user/" + USER);
    fs.mkdirs(home, new FsPermission((short) 0755));
    fs.setOwner(home, USER, "supergroup");
    Path tmp = new Path("/tmp");
    fs.mkdirs(tmp);
    fs.setPermission(tmp, new FsPermission((short) 01777));
  }

  String servicePrincipal() {
    return SERVICE + "/localhost@" + kdc.getRealm();
  }

  /** Principal keys whose value clients see with _HOST. */
  static final String[] PRINCIPAL_KEYS = {
    "dfs.namenode.kerberos.principal", "dfs.datanode.kerberos.principal",
    "yarn.resourcemanager.principal", "yarn.nodemanager.principal",
  };

  /** The configuration as written for clients (see the class comment). */
  Configuration clientView(Configuration live) {
    Configuration c = new Configuration(live);
    for (String k : PRINCIPAL_KEYS) {
      c.set(k, SERVICE + "/_HOST@" + kdc.getRealm());
    }
    return c;
  }

  /** Lines for cluster.env: what a client needs to log in. */
  void env(Map<String, String> env) {
    env.put("KRB5_CONFIG", krb5Conf().toString());
    env.put("KRB_REALM", kdc.getRealm());
    env.put("KDC_ADDRESS", "localhost:" + kdc.getPort());
    env.put("KRB_HOST", host);
    env.put("USER_PRINCIPAL", USER + "@" + kdc.getRealm());
    env.put("USER_NAME", USER);
    env.put("USER_KEYTAB", userKeytab().toString());
    env.put("SERVICE_PRINCIPAL", servicePrincipal());
    env.put("SERVICE_KEYTAB", serviceKeytab().toString());
  }

  String userName() {
    return USER;
  }

  java.nio.file.Path krb5Conf() {
    return dir.resolve("krb5.conf");
  }

  java.nio.file.Path serviceKeytab() {
    return dir.resolve("service.keytab");
  }

  java.nio.file.Path userKeytab() {
    return dir.resolve("user.keytab");
  }

  void stop() {
    if (kdc != null) {
      kdc.stop();
    }
  }
}
