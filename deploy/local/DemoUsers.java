import io.tideline.simulator.Scenario;
import io.tideline.simulator.SimConfig;
import java.util.List;
import java.util.TreeSet;

/**
 * Prints, one a line, the users who own the offline jobs of the simulator's synthetic workload
 * (the jobs a preemption can hit, so the ones notices are about). `./tideline demo` gives each of
 * them an e-mail address in the notifier's directory (PUT /directory/{user}) before the run,
 * since the simulated submissions carry no e-mail in their contacts. The users come from the
 * simulator's own rule (JobSpec.toRequest) over its default tenants, not from a copy of it here.
 * Run as a single-file program with the simulator's classpath:
 * java -cp "simulator/target/classes:$(cat simulator/target/classpath.txt)" deploy/local/DemoUsers.java
 */
public class DemoUsers {
  public static void main(String[] args) {
    TreeSet<String> users = new TreeSet<>();
    for (var job : Scenario.synthetic(SimConfig.DEFAULTS).jobs()) {
      users.add(job.toRequest(List.of()).user());
    }
    users.forEach(System.out::println);
  }
}
