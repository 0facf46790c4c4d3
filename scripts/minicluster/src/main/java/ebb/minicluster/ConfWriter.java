package ebb.minicluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;

/**
 * Writes a live Configuration as a HADOOP_CONF_DIR.
 *
 * Only properties that did not come from a *-default.xml resource are
 * written, with their expanded values: that is what a real cluster's site
 * files hold, it keeps the files readable, and a reader without Hadoop's
 * defaults (ebb's Go code) needs no ${var} expansion. yarn.* keys go to
 * yarn-site.xml, dfs.* to hdfs-site.xml, the rest to core-site.xml.
 */
final class ConfWriter {
  private ConfWriter() {}

  static void write(Configuration live, Path dir) throws IOException {
    Map<String, String> core = new TreeMap<>();
    Map<String, String> yarn = new TreeMap<>();
    Map<String, String> hdfs = new TreeMap<>();
    for (Map.Entry<String, String> e : live) {
      String key = e.getKey();
      // rpc.engine.* records which RPC engine this process registered per
      // protocol: run-time state of the JVM, not configuration for clients.
      if (fromDefaults(live, key) || key.startsWith("rpc.engine.")) {
        continue;
      }
      String value = live.get(key);
      if (value == null) {
        continue;
      }
      if (key.startsWith("yarn.")) {
        yarn.put(key, value);
      } else if (key.startsWith("dfs.")) {
        hdfs.put(key, value);
      } else {
        core.put(key, value);
      }
    }
    // yarn-site.xml last: readers that wait for the ready marker do not care,
    // but a human watching the directory sees core/hdfs first.
    writeXml(core, dir.resolve("core-site.xml"));
    writeXml(hdfs, dir.resolve("hdfs-site.xml"));
    writeXml(yarn, dir.resolve("yarn-site.xml"));
  }

  private static boolean fromDefaults(Configuration c, String key) {
    String[] sources = c.getPropertySources(key);
    if (sources == null || sources.length == 0) {
      return false;
    }
    // The last source is the one whose value is in force.
    String last = sources[sources.length - 1];
    return last.endsWith("-default.xml");
  }

  /**
   * Hadoop's own writeXml keeps hash order on one long line; sorted, one
   * property per line is what a person debugging a test wants to read.
   */
  private static void writeXml(Map<String, String> props, Path file) throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb.append("<!-- Written by ebb.minicluster.Main from the running cluster's configuration. -->\n");
    sb.append("<configuration>\n");
    for (Map.Entry<String, String> e : props.entrySet()) {
      sb.append("  <property><name>").append(escape(e.getKey()))
          .append("</name><value>").append(escape(e.getValue()))
          .append("</value></property>\n");
    }
    sb.append("</configuration>\n");
    Main.writeAtomically(file, sb.toString());
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<': b.append("&lt;"); break;
        case '>': b.append("&gt;"); break;
        case '&': b.append("&amp;"); break;
        case '"': b.append("&quot;"); break;
        case '\'': b.append("&apos;"); break;
        default: b.append(c);
      }
    }
    return b.toString();
  }
}
