/* peer_solve: solves a linear system given as MatrixMarket files (the matrix and the right-hand
 * side, as quilt-poisson --export-matrix writes them) with a general-purpose peer solver, for the
 * peer comparison of bench/peer_comparison.sh (docs/benchmarks.md).
 *
 *   peer_solve -A FILE -b FILE [-solver hypre|gamg] [-rtol 1e-8] [-maxit 500]
 *   peer_solve -solvers          (prints the solvers this build has)
 *   mpirun -np 2 peer_solve -A sys.mtx -b sys.mtx.rhs -solver hypre
 *
 * Solvers (both start from x = 0 and stop at |r_k|_2 <= rtol |b|_2 with their recursively
 * updated residual, the test Quilt's CG makes against |r_0| = |b|):
 *   hypre  hypre's PCG (two-norm) preconditioned by one BoomerAMG V-cycle: HMIS coarsening,
 *          extended+i interpolation with at most 4 entries per row, strength threshold 0.25,
 *          l1-Gauss-Seidel forward on the way down (13) and backward on the way up (14),
 *          Gaussian elimination on the coarsest level.
 *   gamg   PETSc's KSPCG with the unpreconditioned residual norm, preconditioned by PCGAMG with
 *          PETSc's defaults (built only with -DPEER_WITH_PETSC).
 * Every rank reads the files and keeps a contiguous block of rows (N * rank / ranks onwards).
 *
 * One line on rank 0, "PEER key=value ...": solver, ranks, unknowns, nonzeros, read (s, reading
 * the files), build (s, the library's matrix and vectors from the rows read), setup (s), solve
 * (s), iterations, the relative residual the solver reports, the true one |b - A x|/|b|
 * recomputed afterwards, |b| (rhs_norm), and the peak resident memory summed over the ranks
 * (getrusage): after reading (rss_read_kib) and at the end (rss_peak_kib). The rows read are
 * freed once the library has built its matrix from them, so the set-up and the solve do not
 * carry the driver's copy. Times are the slowest rank's, with a barrier before each reading.
 * Exits nonzero when the solver did not converge. */

#include <HYPRE.h>
#include <HYPRE_krylov.h>
#include <HYPRE_parcsr_ls.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#ifdef PEER_WITH_PETSC
#include <petscksp.h>
#endif

typedef struct {
  long long global_rows; /* N */
  long long first, end;  /* this rank's rows [first, end) */
  long long nonzeros;    /* of the whole matrix */
  long long* row_start;  /* end - first + 1 offsets */
  long long* column;     /* global, ascending within a row */
  double* value;
  double* rhs; /* this rank's rows */
} RowBlock;

static int rank_, ranks_;

static void fail(const char* what, const char* file) {
  fprintf(stderr, "peer_solve (rank %d): %s%s%s\n", rank_, what, file ? ": " : "",
          file ? file : "");
  MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

static double now(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime();
}

/* Peak resident set of this process so far, in KiB. */
static long peak_rss_kib(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

/* ---- MatrixMarket reading: a buffered scanner over the file ----------------------------- */

typedef struct {
  FILE* file;
  const char* name;
  char* buffer;
  size_t size, pos;
  int eof;
} Scanner;

enum { kScanBuffer = 1 << 22 };

static void scanner_fill(Scanner* s) {
  const size_t left = s->size - s->pos;
  memmove(s->buffer, s->buffer + s->pos, left);
  s->size = left + fread(s->buffer + left, 1, kScanBuffer - left, s->file);
  s->pos = 0;
  s->eof = s->size < kScanBuffer;
  s->buffer[s->size] = '\0';
}

/* The next whole line (without its '\n'); NULL at the end. Lines are shorter than 4 KiB. */
static char* scanner_line(Scanner* s) {
  for (;;) {
    char* start = s->buffer + s->pos;
    char* nl = memchr(start, '\n', s->size - s->pos);
    if (nl) {
      *nl = '\0';
      s->pos = (size_t)(nl - s->buffer) + 1;
      return start;
    }
    if (s->eof) {
      if (s->pos == s->size) return NULL;
      s->pos = s->size;
      return start;
    }
    scanner_fill(s);
  }
}

/* The next line that is not a comment. */
static char* scanner_data_line(Scanner* s) {
  char* line;
  while ((line = scanner_line(s)) && (line[0] == '%' || line[0] == '\0')) {
  }
  return line;
}

static void scanner_open(Scanner* s, const char* name, const char* expected_header) {
  s->name = name;
  s->file = fopen(name, "rb");
  if (!s->file) fail("cannot open", name);
  s->buffer = malloc(kScanBuffer + 1);
  s->size = s->pos = 0;
  s->eof = 0;
  scanner_fill(s);
  const char* header = scanner_line(s);
  if (!header || strncmp(header, expected_header, strlen(expected_header)) != 0)
    fail("not a MatrixMarket file with the header", expected_header);
}

static void scanner_close(Scanner* s) {
  fclose(s->file);
  free(s->buffer);
}

/* One pass over the entries of a "coordinate real general|symmetric" matrix file: counts the
 * entries of this rank's rows (fill = 0: into B->row_start[r + 1]) or stores them (fill = 1:
 * at next[r]++ of B->column and B->value). */
static void matrix_pass(const char* file, RowBlock* B, int fill, long long* next) {
  Scanner s;
  scanner_open(&s, file, "%%MatrixMarket matrix coordinate real");
  const char* end_of_header = strchr(s.buffer, '\n');
  const char* word = strstr(s.buffer, "symmetric");
  const int symmetric = word && (!end_of_header || word < end_of_header);
  char* line = scanner_data_line(&s);
  long long rows, cols, count;
  if (!line || sscanf(line, "%lld %lld %lld", &rows, &cols, &count) != 3 || rows != cols)
    fail("no square size line", file);
  B->global_rows = rows;
  B->nonzeros = count;
  B->first = rows * rank_ / ranks_;
  B->end = rows * (rank_ + 1) / ranks_;
  if (!fill) B->row_start = calloc((size_t)(B->end - B->first) + 1, sizeof(long long));
  for (long long e = 0; e < count; ++e) {
    line = scanner_data_line(&s);
    if (!line) fail("fewer entries than the size line says", file);
    char *p = line, *q;
    const long long r = strtoll(p, &q, 10) - 1;
    const long long c = strtoll(q, &p, 10) - 1;
    const double v = strtod(p, &q);
    if (q == p || r < 0 || r >= rows || c < 0 || c >= rows) fail("bad entry line", file);
    for (int mirror = 0; mirror <= (symmetric && r != c); ++mirror) {
      const long long row = mirror ? c : r, column = mirror ? r : c;
      if (row < B->first || row >= B->end) continue;
      if (!fill) {
        ++B->row_start[row - B->first + 1];
      } else {
        B->column[next[row - B->first]] = column;
        B->value[next[row - B->first]++] = v;
      }
    }
  }
  scanner_close(&s);
}

/* This rank's rows of the matrix (read in two passes: counted, then stored in place, so that
 * reading needs no more memory than the rows themselves) and of the N x 1 rhs. Columns are
 * sorted within a row; an entry given twice is summed. */
static RowBlock read_system(const char* matrix_file, const char* rhs_file) {
  RowBlock B;
  matrix_pass(matrix_file, &B, 0, NULL);
  const long long local = B.end - B.first;
  for (long long r = 0; r < local; ++r) B.row_start[r + 1] += B.row_start[r];
  const size_t n = (size_t)B.row_start[local];
  B.column = malloc((n ? n : 1) * sizeof(long long));
  B.value = malloc((n ? n : 1) * sizeof(double));
  long long* next = malloc(((size_t)local + 1) * sizeof(long long));
  memcpy(next, B.row_start, (size_t)local * sizeof(long long));
  matrix_pass(matrix_file, &B, 1, next);
  free(next);
  /* Insertion sort of every row by column (rows are short), then duplicates summed, the rows
   * moved forward over the gaps. */
  long long kept = 0;
  for (long long r = 0; r < local; ++r) {
    const long long begin = B.row_start[r], end = B.row_start[r + 1];
    for (long long t = begin + 1; t < end; ++t) {
      const long long c = B.column[t];
      const double v = B.value[t];
      long long u = t;
      for (; u > begin && B.column[u - 1] > c; --u) {
        B.column[u] = B.column[u - 1];
        B.value[u] = B.value[u - 1];
      }
      B.column[u] = c;
      B.value[u] = v;
    }
    const long long row_begin = kept;
    for (long long t = begin; t < end; ++t) {
      if (kept > row_begin && B.column[kept - 1] == B.column[t]) {
        B.value[kept - 1] += B.value[t];
        continue;
      }
      B.column[kept] = B.column[t];
      B.value[kept++] = B.value[t];
    }
    B.row_start[r] = row_begin;
  }
  B.row_start[local] = kept;

  Scanner s;
  scanner_open(&s, rhs_file, "%%MatrixMarket matrix array real general");
  char* line = scanner_data_line(&s);
  long long rows, cols;
  if (!line || sscanf(line, "%lld %lld", &rows, &cols) != 2 || rows != B.global_rows || cols != 1)
    fail("the right-hand side is not an N x 1 array", rhs_file);
  B.rhs = malloc(((size_t)local + 1) * sizeof(double));
  for (long long i = 0; i < rows; ++i) {
    line = scanner_data_line(&s);
    if (!line) fail("fewer values than the size line says", rhs_file);
    if (i >= B.first && i < B.end) B.rhs[i - B.first] = strtod(line, NULL);
  }
  scanner_close(&s);
  return B;
}

/* The library holds its own copy of the matrix once it is built: ours goes before the set-up,
 * so that the peak memory is the solver's. */
static void release_rows(RowBlock* B) {
  free(B->column);
  free(B->value);
  B->column = NULL;
  B->value = NULL;
}

/* ---- results -------------------------------------------------------------------------- */

typedef struct {
  const char* solver;
  double read, build, setup, solve;
  int iterations, converged;
  double reported, true_residual, rhs_norm;
  long rss_read_kib;
} Outcome;

static void report(const RowBlock* B, const Outcome* o) {
  double times[4] = {o->read, o->build, o->setup, o->solve}, slowest[4];
  MPI_Reduce(times, slowest, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  long rss[2] = {o->rss_read_kib, peak_rss_kib()}, total[2];
  MPI_Reduce(rss, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank_ == 0)
    printf(
        "PEER solver=%s ranks=%d unknowns=%lld nonzeros=%lld read=%.4f build=%.4f setup=%.4f "
        "solve=%.4f iterations=%d converged=%d reported_residual=%.3e true_residual=%.3e "
        "rhs_norm=%.17g rss_read_kib=%ld rss_peak_kib=%ld\n",
        o->solver, ranks_, B->global_rows, B->nonzeros, slowest[0], slowest[1], slowest[2],
        slowest[3], o->iterations, o->converged, o->reported, o->true_residual, o->rhs_norm,
        total[0], total[1]);
}

/* ---- hypre ---------------------------------------------------------------------------- */

static void check_hypre(HYPRE_Int error, const char* call) {
  if (error) {
    char text[256];
    HYPRE_DescribeError(error, text);
    fprintf(stderr, "peer_solve (rank %d): %s: hypre error %d (%s)\n", rank_, call, (int)error,
            text);
    HYPRE_ClearAllErrors();
  }
}

static HYPRE_IJVector hypre_vector(const RowBlock* B, const double* values) {
  HYPRE_IJVector v;
  const HYPRE_Int local = (HYPRE_Int)(B->end - B->first);
  HYPRE_BigInt* rows = malloc(((size_t)local + 1) * sizeof(HYPRE_BigInt));
  for (HYPRE_Int i = 0; i < local; ++i) rows[i] = (HYPRE_BigInt)(B->first + i);
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, B->first, B->end - 1, &v);
  HYPRE_IJVectorSetObjectType(v, HYPRE_PARCSR);
  HYPRE_IJVectorInitialize(v);
  HYPRE_IJVectorSetValues(v, local, rows, values);
  HYPRE_IJVectorAssemble(v);
  free(rows);
  return v;
}

static void solve_hypre(RowBlock* B, double rtol, int maxit, Outcome* o) {
  const double t0 = now();
  const HYPRE_Int local = (HYPRE_Int)(B->end - B->first);
  HYPRE_Int* entries_per_row = malloc(((size_t)local + 1) * sizeof(HYPRE_Int));
  HYPRE_Int* diagonal = malloc(((size_t)local + 1) * sizeof(HYPRE_Int));
  HYPRE_Int* off_diagonal = malloc(((size_t)local + 1) * sizeof(HYPRE_Int));
  HYPRE_BigInt* rows = malloc(((size_t)local + 1) * sizeof(HYPRE_BigInt));
  const size_t nnz = (size_t)B->row_start[local];
  HYPRE_BigInt* columns = malloc((nnz ? nnz : 1) * sizeof(HYPRE_BigInt));
  for (HYPRE_Int r = 0; r < local; ++r) {
    rows[r] = (HYPRE_BigInt)(B->first + r);
    entries_per_row[r] = (HYPRE_Int)(B->row_start[r + 1] - B->row_start[r]);
    diagonal[r] = off_diagonal[r] = 0;
    for (long long t = B->row_start[r]; t < B->row_start[r + 1]; ++t) {
      columns[t] = (HYPRE_BigInt)B->column[t];
      if (B->column[t] >= B->first && B->column[t] < B->end)
        ++diagonal[r];
      else
        ++off_diagonal[r];
    }
  }
  HYPRE_IJMatrix Aij;
  HYPRE_IJMatrixCreate(MPI_COMM_WORLD, B->first, B->end - 1, B->first, B->end - 1, &Aij);
  HYPRE_IJMatrixSetObjectType(Aij, HYPRE_PARCSR);
  HYPRE_IJMatrixSetDiagOffdSizes(Aij, diagonal, off_diagonal);
  HYPRE_IJMatrixInitialize(Aij);
  check_hypre(HYPRE_IJMatrixSetValues(Aij, local, entries_per_row, rows, columns, B->value),
              "HYPRE_IJMatrixSetValues");
  check_hypre(HYPRE_IJMatrixAssemble(Aij), "HYPRE_IJMatrixAssemble");
  release_rows(B);
  free(entries_per_row);
  free(diagonal);
  free(off_diagonal);
  free(columns);
  HYPRE_ParCSRMatrix A;
  HYPRE_IJMatrixGetObject(Aij, (void**)&A);
  double* zeros = calloc((size_t)local + 1, sizeof(double));
  HYPRE_IJVector bij = hypre_vector(B, B->rhs), xij = hypre_vector(B, zeros);
  HYPRE_ParVector b, x;
  HYPRE_IJVectorGetObject(bij, (void**)&b);
  HYPRE_IJVectorGetObject(xij, (void**)&x);

  HYPRE_Solver pcg, amg;
  HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
  HYPRE_PCGSetMaxIter(pcg, maxit);
  HYPRE_PCGSetTol(pcg, rtol);
  HYPRE_PCGSetAbsoluteTol(pcg, 0.0);
  HYPRE_PCGSetTwoNorm(pcg, 1);
  HYPRE_PCGSetRelChange(pcg, 0);
  HYPRE_PCGSetLogging(pcg, 1);
  HYPRE_BoomerAMGCreate(&amg);
  HYPRE_BoomerAMGSetCoarsenType(amg, 10); /* HMIS */
  HYPRE_BoomerAMGSetInterpType(amg, 6);   /* extended+i */
  HYPRE_BoomerAMGSetPMaxElmts(amg, 4);
  HYPRE_BoomerAMGSetStrongThreshold(amg, 0.25);
  HYPRE_BoomerAMGSetCycleRelaxType(amg, 13, 1); /* down: l1-Gauss-Seidel, forward */
  HYPRE_BoomerAMGSetCycleRelaxType(amg, 14, 2); /* up: l1-Gauss-Seidel, backward */
  HYPRE_BoomerAMGSetCycleRelaxType(amg, 9, 3);  /* coarsest: Gaussian elimination */
  HYPRE_BoomerAMGSetNumSweeps(amg, 1);
  HYPRE_BoomerAMGSetMaxIter(amg, 1); /* one V-cycle per preconditioning */
  HYPRE_BoomerAMGSetTol(amg, 0.0);
  HYPRE_PCGSetPrecond(pcg, (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSolve,
                      (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSetup, amg);
  const double t1 = now();
  check_hypre(HYPRE_ParCSRPCGSetup(pcg, A, b, x), "HYPRE_ParCSRPCGSetup");
  const double t2 = now();
  const HYPRE_Int status = HYPRE_ParCSRPCGSolve(pcg, A, b, x);
  const double t3 = now();
  if (status) HYPRE_ClearAllErrors(); /* a convergence error: reported through "converged" */
  HYPRE_Int iterations;
  HYPRE_Real reported;
  HYPRE_PCGGetNumIterations(pcg, &iterations);
  HYPRE_PCGGetFinalRelativeResidualNorm(pcg, &reported);
  HYPRE_IJVector rij = hypre_vector(B, B->rhs);
  HYPRE_ParVector r;
  HYPRE_IJVectorGetObject(rij, (void**)&r);
  HYPRE_ParCSRMatrixMatvec(-1.0, A, x, 1.0, r);
  HYPRE_Real rr, bb;
  HYPRE_ParVectorInnerProd(r, r, &rr);
  HYPRE_ParVectorInnerProd(b, b, &bb);
  o->build = t1 - t0;
  o->setup = t2 - t1;
  o->solve = t3 - t2;
  o->iterations = (int)iterations;
  o->reported = reported;
  o->true_residual = bb > 0 ? sqrt(rr / bb) : 0.0;
  o->rhs_norm = sqrt(bb);
  o->converged = reported <= rtol;
  HYPRE_BoomerAMGDestroy(amg);
  HYPRE_ParCSRPCGDestroy(pcg);
  HYPRE_IJVectorDestroy(rij);
  HYPRE_IJVectorDestroy(bij);
  HYPRE_IJVectorDestroy(xij);
  HYPRE_IJMatrixDestroy(Aij);
  free(rows);
  free(zeros);
}

/* ---- PETSc GAMG ----------------------------------------------------------------------- */

#ifdef PEER_WITH_PETSC
static void check_petsc(PetscErrorCode error, const char* call) {
  if (error) fail("PETSc call failed", call);
}

static void solve_gamg(RowBlock* B, double rtol, int maxit, Outcome* o) {
  const double t0 = now();
  const PetscInt local = (PetscInt)(B->end - B->first);
  PetscInt* row_start = malloc(((size_t)local + 1) * sizeof(PetscInt));
  const size_t nnz = (size_t)B->row_start[local];
  PetscInt* columns = malloc((nnz ? nnz : 1) * sizeof(PetscInt));
  for (PetscInt r = 0; r <= local; ++r) row_start[r] = (PetscInt)B->row_start[r];
  for (size_t t = 0; t < nnz; ++t) columns[t] = (PetscInt)B->column[t];
  Mat A;
  Vec b, x, r;
  check_petsc(MatCreateMPIAIJWithArrays(PETSC_COMM_WORLD, local, local, (PetscInt)B->global_rows,
                                        (PetscInt)B->global_rows, row_start, columns, B->value, &A),
              "MatCreateMPIAIJWithArrays");
  release_rows(B);
  free(row_start);
  free(columns);
  check_petsc(MatCreateVecs(A, &x, &b), "MatCreateVecs");
  PetscScalar* values;
  check_petsc(VecGetArray(b, &values), "VecGetArray");
  memcpy(values, B->rhs, (size_t)local * sizeof(double));
  check_petsc(VecRestoreArray(b, &values), "VecRestoreArray");
  check_petsc(VecSet(x, 0.0), "VecSet");
  KSP ksp;
  PC pc;
  check_petsc(KSPCreate(PETSC_COMM_WORLD, &ksp), "KSPCreate");
  check_petsc(KSPSetOperators(ksp, A, A), "KSPSetOperators");
  check_petsc(KSPSetType(ksp, KSPCG), "KSPSetType");
  check_petsc(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
  check_petsc(KSPSetTolerances(ksp, rtol, 0.0, 1e10, maxit), "KSPSetTolerances");
  check_petsc(KSPGetPC(ksp, &pc), "KSPGetPC");
  check_petsc(PCSetType(pc, PCGAMG), "PCSetType");
  check_petsc(KSPSetFromOptions(ksp), "KSPSetFromOptions");
  const double t1 = now();
  check_petsc(KSPSetUp(ksp), "KSPSetUp");
  check_petsc(PCSetUp(pc), "PCSetUp");
  const double t2 = now();
  check_petsc(KSPSolve(ksp, b, x), "KSPSolve");
  const double t3 = now();
  PetscInt iterations;
  PetscReal residual, rnorm, bnorm;
  KSPConvergedReason reason;
  check_petsc(KSPGetIterationNumber(ksp, &iterations), "KSPGetIterationNumber");
  check_petsc(KSPGetResidualNorm(ksp, &residual), "KSPGetResidualNorm");
  check_petsc(KSPGetConvergedReason(ksp, &reason), "KSPGetConvergedReason");
  check_petsc(VecDuplicate(b, &r), "VecDuplicate");
  check_petsc(MatMult(A, x, r), "MatMult");
  check_petsc(VecAYPX(r, -1.0, b), "VecAYPX");
  check_petsc(VecNorm(r, NORM_2, &rnorm), "VecNorm");
  check_petsc(VecNorm(b, NORM_2, &bnorm), "VecNorm");
  o->build = t1 - t0;
  o->setup = t2 - t1;
  o->solve = t3 - t2;
  o->iterations = (int)iterations;
  o->reported = bnorm > 0 ? residual / bnorm : 0.0;
  o->true_residual = bnorm > 0 ? rnorm / bnorm : 0.0;
  o->rhs_norm = bnorm;
  o->converged = reason > 0;
  KSPDestroy(&ksp);
  VecDestroy(&r);
  VecDestroy(&x);
  VecDestroy(&b);
  MatDestroy(&A);
}
#endif

/* ---- main ----------------------------------------------------------------------------- */

static const char* option(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  const char* matrix_file = option(argc, argv, "-A", NULL);
  const char* rhs_file = option(argc, argv, "-b", NULL);
  if (argc == 2 && strcmp(argv[1], "-solvers") == 0) { /* what this build can run */
#ifdef PEER_WITH_PETSC
    if (rank_ == 0) printf("hypre gamg\n");
#else
    if (rank_ == 0) printf("hypre\n");
#endif
    MPI_Finalize();
    return 0;
  }
  Outcome o = {option(argc, argv, "-solver", "hypre"), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const double rtol = atof(option(argc, argv, "-rtol", "1e-8"));
  const int maxit = atoi(option(argc, argv, "-maxit", "500"));
  if (!matrix_file || !rhs_file || !(rtol > 0 && rtol < 1) || maxit < 1) {
    if (rank_ == 0)
      fprintf(stderr,
              "usage: peer_solve -A MATRIX.mtx -b RHS.mtx [-solver hypre|gamg] "
              "[-rtol 1e-8] [-maxit 500]\n");
    MPI_Finalize();
    return 2;
  }
  const double t0 = now();
  RowBlock B = read_system(matrix_file, rhs_file);
  o.read = now() - t0;
  o.rss_read_kib = peak_rss_kib();
  if (strcmp(o.solver, "hypre") == 0) {
    HYPRE_Init();
    solve_hypre(&B, rtol, maxit, &o);
    HYPRE_Finalize();
  } else if (strcmp(o.solver, "gamg") == 0) {
#ifdef PEER_WITH_PETSC
    PetscInitialize(&argc, &argv, NULL, NULL);
    solve_gamg(&B, rtol, maxit, &o);
    PetscFinalize();
#else
    fail("built without PETSc (bench/peers/build.sh found no petsc-dev)", "-solver gamg");
#endif
  } else {
    fail("unknown solver (hypre | gamg)", o.solver);
  }
  report(&B, &o);
  free(B.row_start);
  free(B.column);
  free(B.value);
  free(B.rhs);
  MPI_Finalize();
  return o.converged ? 0 : 1;
}
