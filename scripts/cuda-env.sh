# cuda-env.sh — sourced by gpu-check.sh and sector-32g.sh on the device machine: the cuzk cache (kernels,
# params, PCE records) and where NVRTC is.
#
# Caches: $CUZK_CACHE when set, else the user cache dir when writable, else /tmp (the device machine runs as
# root, maybe without HOME).
if [ -z "${CUZK_CACHE:-}" ]; then
  base="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}"
  if mkdir -p "$base/cuzk" 2>/dev/null && [ -w "$base/cuzk" ]; then CUZK_CACHE="$base/cuzk"; else CUZK_CACHE=/tmp/cuzk-cache; fi
fi
export CUZK_CACHE
mkdir -p "$CUZK_CACHE"

# NVRTC: found by the loader, or in a CUDA install; its builtins library must be on the path too.
if ! ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so'; then
  for d in ${CUDA_HOME:+$CUDA_HOME/lib64} /usr/local/cuda/lib64 /usr/local/cuda-13*/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
           /usr/lib/x86_64-linux-gnu $(ls -d /usr/local/lib/python3*/dist-packages/nvidia/cu*/lib 2>/dev/null); do
    if ls "$d"/libnvrtc.so* >/dev/null 2>&1; then
      export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      export CUZK_NVRTC_LIB="$(ls "$d"/libnvrtc.so* | grep -v builtins | head -1)"
      break
    fi
  done
fi
