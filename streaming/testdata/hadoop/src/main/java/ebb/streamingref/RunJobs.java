package ebb.streamingref;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.RunningJob;
import org.apache.hadoop.streaming.StreamJob;
import org.apache.hadoop.util.ToolRunner;

/**
 * Runs Hadoop Streaming jobs one after another in this JVM, as
 * `hadoop jar hadoop-streaming.jar ARGS` would run each (HadoopStreaming.main
 * hands its arguments to StreamJob through ToolRunner), so that a table of
 * cases pays for one JVM. Each line of the file named by args[0] is one job,
 * its arguments separated by tabs; for each it prints the job's counters
 * ("COUNTER group TAB name TAB value", the framework's own too), then
 * "EXIT n".
 */
public final class RunJobs {
  /** StreamJob, with the job it ran in reach (running_ is protected). */
  static final class Job extends StreamJob {
    RunningJob ran() {
      return running_;
    }
  }

  /**
   * Prints a finished job's counters. A local job's are in reach; a YARN
   * job's client is closed by then (its counters would need the history
   * server), so none are printed for it.
   */
  static void printCounters(RunningJob ran) {
    Counters counters;
    try {
      counters = ran.getCounters();
    } catch (Exception e) {
      System.err.println("no counters: " + e);
      return;
    }
    if (counters == null) {
      return;
    }
    for (Counters.Group g : counters) {
      for (Counters.Counter c : g) {
        System.out.println("COUNTER " + g.getName() + "\t" + c.getName() + "\t" + c.getValue());
      }
    }
  }

  public static void main(String[] args) throws Exception {
    List<String> jobs = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
    for (String line : jobs) {
      if (line.isEmpty()) {
        continue;
      }
      int code;
      Job job = new Job();
      try {
        code = ToolRunner.run(new Configuration(), job, line.split("\t", -1));
      } catch (Exception e) {
        System.err.println("job threw: " + e);
        code = 1;
      }
      if (code == 0 && job.ran() != null) {
        printCounters(job.ran());
      }
      System.out.println("EXIT " + code);
      System.out.flush();
    }
  }
}
