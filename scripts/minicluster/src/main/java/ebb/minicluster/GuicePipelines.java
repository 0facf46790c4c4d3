package ebb.minicluster;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.nodemanager.webapp.WebServer;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.webapp.WebApp;
import org.eclipse.jetty.servlet.FilterHolder;

import com.google.inject.servlet.GuiceFilter;

/**
 * Makes each YARN web app in this JVM answer with its own routes.
 *
 * Hadoop's WebApps registers Guice's GuiceFilter by class name, so Jetty
 * creates the filter and it falls back to Guice's static, JVM-wide pipeline,
 * which belongs to whichever web app was built last. With an RM and three
 * NMs in one JVM, every port would serve the last NodeManager's routes: the
 * RM's /ws/v1/cluster/... answers 404 and each NM's /ws/v1/node/... describes
 * the same NM. Each WebApp also keeps a GuiceFilter built by its own injector
 * (for stopping); its pipeline is the right one, so it is copied into the
 * filter Jetty actually runs. This touches private fields, hence reflection;
 * a Hadoop without these fields makes it fail loudly, not silently.
 */
final class GuicePipelines {
  private GuicePipelines() {}

  static void pin(MiniYARNCluster yarn, int nodeManagers) throws ReflectiveOperationException {
    for (int i = 0; i < yarn.getNumOfResourceManager(); i++) {
      pinResourceManager(yarn.getResourceManager(i));
    }
    for (int i = 0; i < nodeManagers; i++) {
      pinNodeManager(yarn.getNodeManager(i));
    }
  }

  /** For an RM started after the others (Control's restarts), and at start. */
  static void pinResourceManager(ResourceManager rm) throws ReflectiveOperationException {
    Method getWebapp = ResourceManager.class.getDeclaredMethod("getWebapp");
    getWebapp.setAccessible(true);
    pin((WebApp) getWebapp.invoke(rm));
  }

  /** For a NodeManager started after the others (Control's restarts), and at start. */
  static void pinNodeManager(NodeManager nm) throws ReflectiveOperationException {
    pin(nmWebApp(nm));
  }

  private static WebApp nmWebApp(NodeManager nm) throws ReflectiveOperationException {
    for (Service s : nm.getServices()) {
      if (s instanceof WebServer) {
        return (WebApp) field(WebServer.class, "webApp").get(s);
      }
    }
    throw new NoSuchFieldException("NodeManager " + nm.getName() + " has no WebServer service");
  }

  private static void pin(WebApp app) throws ReflectiveOperationException {
    GuiceFilter own = (GuiceFilter) field(WebApp.class, "guiceFilter").get(app);
    Field pipeline = field(GuiceFilter.class, "injectedPipeline");
    Object p = pipeline.get(own);
    if (p == null) {
      throw new IllegalStateException("web app " + app.name() + " has no injected Guice pipeline");
    }
    FilterHolder holder = app.httpServer().getWebAppContext().getServletHandler().getFilter("guice");
    if (holder == null || !(holder.getFilter() instanceof GuiceFilter)) {
      throw new IllegalStateException("web app " + app.name() + " has no running guice filter");
    }
    pipeline.set(holder.getFilter(), p);
  }

  private static Field field(Class<?> c, String name) throws NoSuchFieldException {
    Field f = c.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }
}
