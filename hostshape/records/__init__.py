"""Records: which list holds the records, which column identifies them, what is noise; the projection and the
zero-configuration shrink built on those answers (locate, structure, shrink, project, previews, query)."""
