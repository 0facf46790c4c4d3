package ebb.minicluster;

import java.lang.reflect.Field;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Points the RM's application proxy at its real web address.
 *
 * The RM caches its proxy host:port (in RMContextImpl) while setting up the
 * web app, before the ephemeral port is bound, so every tracking URL it hands
 * out reads http://localhost:0/proxy/... . Replacing the cached value with
 * the bound address makes tracking URLs (and the proxy links in the RM UI)
 * work, as they do on a cluster with a fixed web port.
 */
final class ProxyAddress {
  private ProxyAddress() {}

  static void fix(ResourceManager rm) throws ReflectiveOperationException {
    // The RM's own configuration: under HA the RM copies its own id's
    // addresses into the plain keys.
    Configuration live = rm.getConfig();
    String webapp = live.get(YarnConfiguration.RM_WEBAPP_ADDRESS);
    if (webapp == null || webapp.endsWith(":0")) {
      throw new IllegalStateException("RM web app address not bound yet: " + webapp);
    }
    RMContext ctx = rm.getRMContext();
    Field f = findField(ctx.getClass(), "proxyHostAndPort");
    f.setAccessible(true);
    f.set(ctx, webapp);
    // Read back through the RM's own path, so a Hadoop that computes the URL
    // elsewhere fails here instead of handing out port 0 again.
    String url = ctx.getAppProxyUrl(live, ApplicationId.newInstance(0, 1));
    if (!url.contains(webapp)) {
      throw new IllegalStateException("RM proxy URL " + url + " does not use " + webapp);
    }
    Main.log("tracking URLs look like %s", url);
  }

  private static Field findField(Class<?> c, String name) throws NoSuchFieldException {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      try {
        return k.getDeclaredField(name);
      } catch (NoSuchFieldException e) {
        // look in the superclass
      }
    }
    throw new NoSuchFieldException(c.getName() + "." + name);
  }
}
