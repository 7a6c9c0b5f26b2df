#!/usr/bin/env bash
# Copies Mesa's device-select Vulkan layer and the libraries it links into .device/layer, for two-GPU runs
# on a GPU machine without mesa-vulkan-drivers (requestDevices needs the layer to pin a device to each GPU).
# Run after pack.sh; on the GPU machine, prefix the command with the environment this prints.
set -euo pipefail
manifest=/usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json
[ -f "$manifest" ] || { echo "pack-device-layer: $manifest not found: install mesa-vulkan-drivers (tooling/setup.sh does)" >&2; exit 1; }
lib=$(ldconfig -p | awk '/libVkLayer_MESA_device_select.so / { print $NF; exit }')
[ -n "$lib" ] || { echo "pack-device-layer: libVkLayer_MESA_device_select.so not found" >&2; exit 1; }
out=.device/layer
[ -d .device ] || { echo "pack-device-layer: no .device/ here: run ../shared/device/pack.sh first, from the repository root" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
cp -L "$lib" "$out/"
# The layer's own dependencies, except the C library and the loader every machine has.
ldd "$lib" | awk '/=> \// { print $3 }' | grep -v -E '/(libc|libpthread|libdl|libm|ld-linux[^/]*)\.so' | while read -r dep; do cp -L "$dep" "$out/"; done
sed 's#"library_path": *"[^"]*"#"library_path": "./libVkLayer_MESA_device_select.so"#' "$manifest" > "$out/VkLayer_MESA_device_select.json"
echo "pack-device-layer: $(ls "$out" | wc -l) files in $out; on the GPU machine (run.sh changes into .device/) prefix the command with:"
echo '  LD_LIBRARY_PATH=$PWD/layer VK_ADD_LAYER_PATH=$PWD/layer VK_INSTANCE_LAYERS=VK_LAYER_MESA_device_select'
