package org.paimonparity.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;

import java.io.File;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one table with the released Paimon Flink connector, as a user's streaming job does: a
 * Flink MiniCluster in this process, a Paimon catalog on a warehouse written through {@link
 * FailingFileIO}, {@code CREATE TABLE} with the spec's options, and one streaming {@code INSERT} job
 * per producer from a deterministic, checkpointed source ({@link InputGenerator}); checkpoints every
 * few hundred milliseconds, fixed-delay restarts, {@code table.exec.sink.upsert-materialize=NONE}.
 * Producer {@code p}'s job commits as user {@code producer-p_<uuid>} ({@code commit.user-prefix}).
 *
 * <p>Usage: {@code FlinkCorpusJob SPEC.json}. The spec (written by the Rust side, {@code
 * harness::flink::JobSpec}): {@code warehouse} (a local directory), {@code database}, {@code table},
 * {@code options} (table options), {@code source} ({@code keys}, {@code records}, {@code seed},
 * {@code producers}, {@code rate_per_second}), {@code checkpoint_interval_ms}, {@code
 * restart_attempts}, {@code restart_delay_ms}, {@code failures} ({@code random_probability}, {@code
 * random_max}, {@code random_seed}, {@code targeted}: {@code {"producer": p, "identifier": n}} or
 * null, {@code end_of_input}: {@code {"producer": p, "at": "commit"|"compact"}} or null, {@code
 * while_writing}: {@code {"producer": p, "after_identifier": n, "file": "data"|"changelog", "nth":
 * n, "operation": "create"|"write"}} or null; see {@link FailingFileIO}) and {@code failure_log} (where the {@link FailureLog} goes). Exit status 0 when every job
 * finished, 1 otherwise; the failure log is written either way.
 */
public final class FlinkCorpusJob {

    private FlinkCorpusJob() {}

    /** Runs the job of the spec file {@code args[0]}. */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: FlinkCorpusJob SPEC.json");
            System.exit(2);
        }
        JsonNode spec = new ObjectMapper().readTree(new File(args[0]));
        JsonNode failures = spec.path("failures");
        JsonNode targeted = failures.path("targeted");
        FailingFileIO.configure(
                failures.path("random_probability").asDouble(0),
                failures.path("random_max").asInt(0),
                failures.path("random_seed").asLong(0),
                targeted.isObject() ? userPrefix(targeted.path("producer").asInt()) : null,
                targeted.isObject() ? targeted.path("identifier").asLong() : Long.MIN_VALUE);
        JsonNode end = failures.path("end_of_input");
        if (end.isObject()) {
            int p = end.path("producer").asInt();
            FailingFileIO.configureEndOfInput(
                    new FailingFileIO.EndOfInput(p, userPrefix(p), end.path("at").asText()));
        }
        JsonNode writing = failures.path("while_writing");
        if (writing.isObject()) {
            int p = writing.path("producer").asInt();
            FailingFileIO.configureWhileWriting(
                    new FailingFileIO.WhileWriting(
                            p,
                            userPrefix(p),
                            writing.path("after_identifier").asLong(),
                            writing.path("file").asText("data"),
                            writing.path("nth").asInt(1),
                            writing.path("operation").asText("create")));
        }

        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("flink_version", EnvironmentInformation.getVersion());
        int status = 1;
        try {
            summary.put("jobs", run(spec));
            status = 0;
        } catch (Throwable e) {
            summary.put("error", e.toString());
            e.printStackTrace();
        }
        summary.put("random_failures", FailingFileIO.randomFired());
        summary.put("targeted", FailingFileIO.targeted());
        summary.put("end_of_input", FailingFileIO.endOfInput());
        summary.put("while_writing", FailingFileIO.whileWriting());
        try {
            FailureLog.write(new File(spec.path("failure_log").asText()), summary);
        } finally {
            System.exit(status); // the MiniCluster's threads would keep the JVM alive
        }
    }

    /** The commit user prefix of producer {@code p}'s job. */
    static String userPrefix(int p) {
        return "producer-" + p;
    }

    private static List<Map<String, Object>> run(JsonNode spec) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("parallelism.default", "1");
        // A local job on local files: no Hadoop delegation tokens to obtain.
        settings.put("security.delegation.tokens.enabled", "false");
        settings.put(
                "execution.checkpointing.interval",
                spec.path("checkpoint_interval_ms").asLong(400) + " ms");
        settings.put("restart-strategy.type", "fixed-delay");
        settings.put(
                "restart-strategy.fixed-delay.attempts",
                String.valueOf(spec.path("restart_attempts").asInt(100)));
        settings.put(
                "restart-strategy.fixed-delay.delay",
                spec.path("restart_delay_ms").asLong(200) + " ms");
        Configuration conf = Configuration.fromMap(settings);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("table.exec.sink.upsert-materialize", "NONE");

        String warehouse = new File(spec.path("warehouse").asText()).getAbsolutePath();
        String db = spec.path("database").asText("default");
        String table = spec.path("table").asText("t");
        tEnv.executeSql(
                "CREATE CATALOG pc WITH ('type'='paimon', 'warehouse'='"
                        + FailingFileIO.SCHEME
                        + "://"
                        + warehouse
                        + "')");
        tEnv.executeSql("USE CATALOG pc");
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS `" + db + "`");
        tEnv.executeSql("USE `" + db + "`");
        StringBuilder ddl =
                new StringBuilder("CREATE TABLE `")
                        .append(table)
                        .append("` (k INT NOT NULL, producer INT, seq BIGINT, v BIGINT,")
                        .append(" PRIMARY KEY (k) NOT ENFORCED)");
        Iterator<Map.Entry<String, JsonNode>> options = spec.path("options").fields();
        if (options.hasNext()) {
            ddl.append(" WITH (");
            boolean first = true;
            while (options.hasNext()) {
                Map.Entry<String, JsonNode> o = options.next();
                ddl.append(first ? "" : ", ")
                        .append(quote(o.getKey()))
                        .append(" = ")
                        .append(quote(o.getValue().asText()));
                first = false;
            }
            ddl.append(")");
        }
        tEnv.executeSql(ddl.toString());

        JsonNode source = spec.path("source");
        int producers = source.path("producers").asInt(1);
        List<TableResult> results = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            InputGenerator gen =
                    new InputGenerator(
                            source.path("seed").asLong(),
                            p,
                            producers,
                            source.path("keys").asInt(),
                            source.path("records").asLong());
            DataStream<Row> stream =
                    env.fromSource(
                            new DataGeneratorSource<>(
                                    gen,
                                    gen.total(),
                                    RateLimiterStrategy.perSecond(
                                            source.path("rate_per_second").asDouble(1000)),
                                    InputGenerator.rowType()),
                            WatermarkStrategy.noWatermarks(),
                            userPrefix(p));
            String view = "input_" + p;
            tEnv.createTemporaryView(
                    view, tEnv.fromChangelogStream(stream, Schema.derived(), ChangelogMode.all()));
            results.add(
                    tEnv.executeSql(
                            "INSERT INTO `"
                                    + table
                                    + "` /*+ OPTIONS('commit.user-prefix' = '"
                                    + userPrefix(p)
                                    + "') */ SELECT k, producer, seq, v FROM "
                                    + view));
        }
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            TableResult r = results.get(p);
            r.await();
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("producer", p);
            job.put("commit_user_prefix", userPrefix(p));
            job.put(
                    "job_id",
                    r.getJobClient().map(c -> c.getJobID().toString()).orElse(null));
            job.put("failovers", InputGenerator.failovers().getOrDefault(p, 0));
            jobs.add(job);
        }
        return jobs;
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
