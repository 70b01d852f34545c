package io.tideline.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real KRaft broker as a process ({@code kafka.Kafka} from {@code .tideline/kafka/libs}), as
 * {@code ./tideline up} runs it: formatted once, then killed (SIGKILL) and restarted on the same
 * ports and log directory as often as a test likes.
 */
final class BrokerProcess implements AutoCloseable {

  private final Path dir;
  private final int port;
  private final int controllerPort;
  private final Path libs;
  private final Path log;
  private Process process;

  private BrokerProcess(Path dir, int port, int controllerPort, Path libs, Path log) {
    this.dir = dir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.libs = libs;
    this.log = log;
  }

  static BrokerProcess start(Path home, Path dir, Path logs) throws IOException {
    int port = Ports.free();
    int controller = Ports.free();
    Files.createDirectories(dir);
    Path libs = home.resolve("kafka").resolve("libs");
    Files.writeString(dir.resolve("server.properties"), String.join("\n",
        "process.roles=broker,controller", "node.id=1",
        "controller.quorum.bootstrap.servers=127.0.0.1:" + controller,
        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller,
        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
        "controller.listener.names=CONTROLLER",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=PLAINTEXT", "log.dirs=" + dir.resolve("data"),
        "num.partitions=1", "auto.create.topics.enable=false",
        "offsets.topic.replication.factor=1", "offsets.topic.num.partitions=1",
        "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1",
        "share.coordinator.state.topic.replication.factor=1",
        "group.initial.rebalance.delay.ms=0", "log.message.timestamp.after.max.ms=3600000", ""));
    String java = Ports.java();
    String cp = libs.resolve("*").toString();
    String id = Ports.run(List.of(java, "-cp", cp, "kafka.tools.StorageTool", "random-uuid"))
        .strip();
    Ports.run(List.of(java, "-cp", cp, "kafka.tools.StorageTool", "format", "--standalone", "-t",
        id, "-c", dir.resolve("server.properties").toString()));
    BrokerProcess b = new BrokerProcess(dir, port, controller, libs, logs.resolve("kafka.log"));
    b.launch();
    return b;
  }

  private void launch() throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Ports.java(), "-Xms128m", "-Xmx384m",
        "-XX:+UseSerialGC", "-Dlog4j2.configurationFile=" + Ports.root()
            .resolve("deploy/local/log4j2.properties"),
        "-cp", libs.resolve("*").toString(), "kafka.Kafka",
        dir.resolve("server.properties").toString()));
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    Ports.awaitListening(port, process, log);
  }

  String bootstrap() {
    return "127.0.0.1:" + port;
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL, then start again on the same ports and data. */
  void kill9AndRestart() throws IOException {
    kill9();
    launch();
  }

  void kill9() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
      }
    }
  }
}
