package org.paperkg.browser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.regex.Pattern;
import javax.ws.rs.GET;
import javax.ws.rs.OPTIONS;
import javax.ws.rs.PathParam;
import javax.ws.rs.core.Response;

/**
 * Serves paperkg's Neo4j Browser guide and style from the Neo4j HTTP server itself.
 *
 * <p>Why here: Neo4j Browser fetches {@code :guide <url>} and {@code :style <url>} with an XHR from
 * its own page, so a file on the same origin needs no CORS and no extra server, and it works
 * offline. Mounted by {@code server.unmanaged_extension_classes=org.paperkg.browser=/paperkg}.
 *
 * <p>Only flat file names with a known extension are served, from one directory:
 * {@code $PAPERKG_BROWSER_DIR}, else {@code $NEO4J_HOME/paperkg-browser}. The files are written by
 * scripts/neo4j/start (the style) and by {@code python -m kg.browser.guide} (the guide).
 */
@javax.ws.rs.Path("/")
public class GuideFiles {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,100}");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "grass", "text/plain; charset=utf-8",
            "md", "text/markdown; charset=utf-8",
            "cypher", "text/plain; charset=utf-8",
            "png", "image/png");

    static Path directory() {
        String dir = System.getenv("PAPERKG_BROWSER_DIR");
        if (dir == null || dir.isBlank()) {
            String home = System.getenv("NEO4J_HOME");
            dir = (home == null || home.isBlank() ? "." : home) + "/paperkg-browser";
        }
        return Paths.get(dir).toAbsolutePath().normalize();
    }

    /** Public, read-only files: any origin may read them (http://localhost vs http://127.0.0.1). */
    private static Response.ResponseBuilder cors(Response.ResponseBuilder response) {
        return response.header("Access-Control-Allow-Origin", "*")
                .header("Access-Control-Allow-Methods", "GET, OPTIONS")
                .header("Access-Control-Allow-Headers", "pragma, cache-control");
    }

    /** Browser sends guide requests with pragma/cache-control headers, hence a preflight. */
    @OPTIONS
    @javax.ws.rs.Path("{name}")
    public Response preflight(@PathParam("name") String name) {
        return cors(Response.noContent()).build();
    }

    @GET
    @javax.ws.rs.Path("{name}")
    public Response file(@PathParam("name") String name) {
        int dot = name.lastIndexOf('.');
        String type = dot < 0 ? null : TYPES.get(name.substring(dot + 1));
        if (type == null || !NAME.matcher(name).matches() || name.contains("..")) {
            return cors(Response.status(Response.Status.NOT_FOUND)).build();
        }
        Path dir = directory();
        Path file = dir.resolve(name).normalize();
        if (!file.startsWith(dir) || !Files.isRegularFile(file)) {
            return cors(Response.status(Response.Status.NOT_FOUND))
                    .type("text/plain; charset=utf-8")
                    .entity(name + " not found in " + dir + " (generate it: python -m kg.browser.guide)\n")
                    .build();
        }
        try {
            return cors(Response.ok(Files.readAllBytes(file), type)).header("Cache-Control", "no-cache").build();
        } catch (IOException e) {
            return cors(Response.serverError()).type("text/plain; charset=utf-8").entity(e.getMessage() + "\n").build();
        }
    }
}
