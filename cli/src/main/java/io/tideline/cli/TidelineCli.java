package io.tideline.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code tideline}: the command line of the Tideline scheduler. Jobs go in as events; everything
 * else is read back from Kafka, decoded through the schema registry.
 */
@Command(name = "tideline", mixinStandardHelpOptions = true, version = "tideline 0.1.0-SNAPSHOT",
    description = "Submit jobs to Tideline and see what it decided and why.",
    subcommands = {SubmitCommand.class, QueueCommand.class, QuotaCommand.class, JobsCommand.class,
        ExplainCommand.class, TailCommand.class, AuditCommand.class, SchemasCommand.class,
        AclsCommand.class, TokenCommand.class})
public final class TidelineCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true))
        .execute(args));
  }

  /** The command line writing to the given streams (tests capture them). */
  public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    CommandLine cl = new CommandLine(new TidelineCli());
    cl.setOut(out);
    cl.setErr(err);
    cl.setExecutionExceptionHandler((ex, line, parsed) -> {
      line.getErr().println("tideline: " + ex.getMessage());
      return 1;
    });
    return cl;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
