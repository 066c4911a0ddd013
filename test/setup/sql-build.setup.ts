import { crossCheckSqlBuild } from '../../src/db/sql-build.ts';

// Every raw statement the suite runs is built by both builders and compared (src/db/sql-build.ts).
crossCheckSqlBuild(true);
