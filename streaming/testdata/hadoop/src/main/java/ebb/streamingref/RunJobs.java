package ebb.streamingref;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.streaming.StreamJob;
import org.apache.hadoop.util.ToolRunner;

/**
 * Runs Hadoop Streaming jobs one after another in this JVM, as
 * `hadoop jar hadoop-streaming.jar ARGS` would run each (HadoopStreaming.main
 * hands its arguments to StreamJob through ToolRunner), so that a table of
 * cases pays for one JVM. Each line of the file named by args[0] is one job,
 * its arguments separated by tabs; for each it prints "EXIT n".
 */
public final class RunJobs {
  public static void main(String[] args) throws Exception {
    List<String> jobs = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
    for (String line : jobs) {
      if (line.isEmpty()) {
        continue;
      }
      int code;
      try {
        code = ToolRunner.run(new Configuration(), new StreamJob(), line.split("\t", -1));
      } catch (Exception e) {
        System.err.println("job threw: " + e);
        code = 1;
      }
      System.out.println("EXIT " + code);
      System.out.flush();
    }
  }
}
