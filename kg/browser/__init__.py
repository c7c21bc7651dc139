"""The Neo4j Browser guide: a guide page built from the names a store holds, with its queries."""
