# The neo4j service of docker-compose.yml: the official image plus paperkg's Browser extension,
# which serves the style and the guide at http://localhost:7474/paperkg/ (same origin as Browser,
# so it works offline). Settings that enable it are in docker-compose.yml.
ARG NEO4J_VERSION=5.26.19
FROM neo4j:${NEO4J_VERSION}-community AS neo4j

# Compile the ~80-line JAX-RS resource against the server's own jars (the image has a JRE only).
FROM eclipse-temurin:17-jdk AS extension
COPY --from=neo4j /var/lib/neo4j/lib/ /neo4j-lib/
COPY neo4j-browser/extension/ /src/
RUN javac --release 17 -nowarn -d /classes -cp "/neo4j-lib/*" /src/org/paperkg/browser/GuideFiles.java \
    && jar cf /paperkg-browser.jar -C /classes .

FROM neo4j
COPY --from=extension /paperkg-browser.jar /plugins/paperkg-browser.jar
# Until the seed service writes the guide for the loaded graph, a generic one is served.
# World-writable: the directory becomes the shared "browser-guide" volume the seed writes to.
COPY neo4j-browser/paperkg.grass neo4j-browser/guide.html /paperkg-browser/
RUN chmod 0777 /paperkg-browser && chmod 0666 /paperkg-browser/*
ENV PAPERKG_BROWSER_DIR=/paperkg-browser
