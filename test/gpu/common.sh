# SPDX-License-Identifier: Apache-2.0
# Sourced by the GPU scripts that build into build/gpu-triton (run_docs.sh, run_versions.sh,
# run_launcher.sh): one way to log, fail and build.
#   gpu_begin NAME VERDICT   $OUT/NAME.log gets a copy of everything (when OUT is set); fail()
#                            prints "VERDICT: FAIL (why)" and exits 1
#   gpu_build TARGET...      configures build/gpu-triton (Release, HIP off, XLA on, warnings as
#                            errors, this python3) and builds TARGETs; its logs in the build
#   gpu_python_env           exports what the checkout's Python package needs to run on this
#                            build's libtkrt and tkrt._native
# Sets here (the calling script's folder), root, build, jobs.
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu-triton"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"
gpu_verdict=GPU

gpu_begin() {
  gpu_verdict="$2"
  if [[ -n "${OUT:-}" ]]; then
    mkdir -p "$OUT"
    exec > >(tee "$OUT/$1.log") 2>&1
  fi
}

fail() { echo "$gpu_verdict: FAIL ($1)"; exit 1; }

gpu_build() {
  mkdir -p "$build"
  local log="$build/${gpu_verdict,,}"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF -DTKRT_BUILD_XLA=ON \
    -DTKRT_WARNINGS_AS_ERRORS=ON -DPython3_EXECUTABLE="$(command -v python3)" ${TKRT_GPU_CMAKE_ARGS:-} \
    > "$log-configure.log" 2>&1 || { tail -n 40 "$log-configure.log"; fail "configure"; }
  cmake --build "$build" -j "$jobs" --target "$@" > "$log-build.log" 2>&1 \
    || { tail -n 40 "$log-build.log"; fail "build"; }
}

gpu_python_env() {
  export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" TKRT_LIBRARY="$build/libtkrt.so.0" \
    TKRT_NATIVE_MODULE="$(ls "$build"/python/tkrt/_native*.so 2>/dev/null | head -n 1)"
  if [[ -f "$build/xla/libtkrt_xla.so" ]]; then export TKRT_XLA_LIBRARY="$build/xla/libtkrt_xla.so"; fi
}
